#!/bin/sh
# Runs inside the bluez-vm guest (shared/bluez-vm, scenario.sh): percbridge against the real
# bluetoothd 5.66 with two emulated PERCs (hci1 perc-v1, hci2 mtk-serial), central hci0.
# One line per stage: "STAGE <name> PASS|FAIL <figure>"; exit 1 if any stage failed.
# Figures: seconds from the trigger until the service streams from the PERC again, measured
# from the service's own counters (streaming.py: the link came up again and a notification
# sent after that arrived; the PERC side's `wait subscribed` cannot tell, bluetoothd keeps a
# bonded client's CCC across links), events sent by the PERCs / received by percbridge.
set -u
PB=$BTVM_DIR/percbridge
R=$RESULTS
FAILED=0
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk "BEGIN{printf \"%.2f\", $(now) - $1}"; }
# Every stage line and every step also goes to the serial console at once (scenario.sh copies the
# hook log out only when the hook ends): the host sees how far the hook got even if the VM is
# powered off by the harness's watchdog.
console() { echo "BTVM: HOOK [$(now)] $*" > /dev/console 2>/dev/null || true; }
stage() { echo "STAGE $1 $2 $3"; console "STAGE $1 $2 $3"; [ "$2" = PASS ] || FAILED=1; }
step() {
  echo "$*" > $R/step; console "step: $*"
  # Testing the watchdog: scripts/test-real-bluez with HOOK_HANG_AT=<step> makes that step hang.
  if [ -f $BTVM_DIR/hang-at ] && [ "$(cat $BTVM_DIR/hang-at)" = "$*" ]; then console "hanging at step '$*' (HOOK_HANG_AT)"; sleep 100000; fi
}
# Nothing here may wait for ever: every command that talks to a peer has a bound (timeout -k).
T() { lim=$1; shift; timeout -k 3 $lim "$@"; }
ctl() { T 45 $PERCCTL "$@"; }
# The hook's own watchdog, well before the harness's (btvm.timeout): on expiry it records where
# the hook was, the guest kernel's last Bluetooth lines and the processes, reports a FAIL stage
# and ends the hook's children, so scenario.sh still writes the results out.
TMO=$(sed -n 's/.*btvm\.timeout=\([0-9]*\).*/\1/p' /proc/cmdline); TMO=${TMO:-420}
BUDGET=$(awk "BEGIN{printf \"%d\", $TMO - $(now) - 40}")
HOOK=$$
( sleep $BUDGET
  msg="STAGE hook FAIL the hook hung for ${BUDGET} s, at step '$(cat $R/step 2>/dev/null)'"
  # Its own file: the hook's log is written at the hook's offset, which would overwrite it.
  echo "$msg" > $R/hook-watchdog.log; console "$msg"
  dmesg | grep -i -E 'bluetooth|hci' | tail -8 | while IFS= read -r l; do console "dmesg| $l"; done
  ps -eo pid,ppid,etimes,args > $R/ps-at-hang.txt
  # What the hook started (not this watchdog), then the hook itself (SIGKILL: it may have
  # inherited an ignored SIGTERM) so it cannot go on to the next stage.
  read -r self _ < /proc/self/stat
  kids=$(pgrep -P $HOOK | grep -v -x "$self")
  kill -KILL $HOOK; kill -TERM $kids 2>/dev/null; sleep 1; kill -KILL $kids 2>/dev/null ) &
WATCHDOG=$!
trap 'kill $WATCHDOG 2>/dev/null' EXIT
# A guest kernel that ignored a connection complete for a link it still holds (btvirt and the
# kernel disagree whether a link exists) is a harness fault; say so where it happened.
kfaults() { dmesg | grep -c -E 'Ignoring HCI_Connection_Complete|ACL packet for unknown|list_del corruption|general protection|kernel BUG|Oops'; }
addr() { sed -n 's/.*"address": *"\([^"]*\)".*/\1/p' $PERC_DIR/$1.ready; }
V1=$(addr hci1); MTK=$(addr hci2)
echo "perc-v1 $V1, mtk-serial $MTK"
ldd $PB | grep -q 'not found' && { ldd $PB; echo "STAGE ldd FAIL missing libraries"; exit 1; }

# --- scan: each PERC once, no RSSI 127
step scan
t=$(now)
T 60 $PB scan --timeout 4 --json > $R/scan.json 2> $R/scan.err
n1=$(grep -c "\"$V1\"" $R/scan.json); n2=$(grep -c "\"$MTK\"" $R/scan.json)
if [ "$n1" = 1 ] && [ "$n2" = 1 ] && ! grep -q '"rssi":127' $R/scan.json; then stage scan PASS "both found once in $(since $t) s"
else stage scan FAIL "lines v1=$n1 mtk=$n2: $(cat $R/scan.json $R/scan.err | tr '\n' ' ')"; fi

# --- monitor on both notification paths (before pairing: monitor needs no service)
for path in acquire start; do
  step monitor-$path
  flag=; [ $path = start ] && flag=--start-notify
  $PB monitor $V1 $MTK --json --duration 25 --verbose $flag > $R/monitor-$path.json 2> $R/monitor-$path.err &
  mpid=$!
  ok=1; ctl hci1 'wait subscribed 15' >/dev/null && ctl hci2 'wait subscribed 15' >/dev/null || ok=0
  ctl hci1 'stream 10 200' >/dev/null; ctl hci2 'stream 10 200' >/dev/null
  ctl hci1 'wait idle 30' >/dev/null; ctl hci2 'wait idle 30' >/dev/null
  sleep 1; kill $mpid 2>/dev/null; wait $mpid
  l1=$(grep "\"$V1\"" $R/monitor-$path.json | grep -c '"kind":"light"'); l2=$(grep "\"$MTK\"" $R/monitor-$path.json | grep -c '"kind":"light"')
  # 200 toggles each, + the initial state read at link-up (1 light event each).
  if [ $ok = 1 ] && [ "$l1" -ge 200 ] && [ "$l2" -ge 200 ]; then stage monitor-$path PASS "v1 200 sent/$l1 received, mtk 200/$l2"
  else stage monitor-$path FAIL "subscribed=$ok v1 200/$l1 mtk 200/$l2"; fi
  ctl hci1 'wait disconnected 10' >/dev/null; ctl hci2 'wait disconnected 10' >/dev/null
done

# --- pairing through our own agent (percbridge pair --direct, no service): the MTK PERC.
step pair-direct
t=$(now)
if T 60 $PB pair --direct $MTK --timeout 30 --json > $R/pair-direct.json 2>&1 && grep -q '"ok":true' $R/pair-direct.json; then
  stage pair-direct PASS "paired through the agent in $(since $t) s ($(sed -n 's/.*"profile":"\([^"]*\)".*/\1/p' $R/pair-direct.json))"
else stage pair-direct FAIL "$(cat $R/pair-direct.json | tr '\n' ' ')"; fi
ctl hci2 'wait disconnected 10' >/dev/null 2>&1 || true

# --- serve with a registry; pairing through the control API (percbridge pair, no --direct):
# the v1 PERC afresh, the MTK one already bonded by the agent above (registered all the same).
# The system bus lets the service own its name only with our policy file (as the package does).
cp $BTVM_DIR/org.percbridge.PercBridge1.conf /etc/dbus-1/system.d/ && \
  dbus-send --system --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.ReloadConfig >/dev/null
cat > $R/pb.toml <<TOML
[bluetooth]
adapter = "hci0"
[http]
bind = "127.0.0.1:8080"
[tuio]
enabled = false
[registry]
path = "$R/tangibles.json"
TOML
$PB serve --config $R/pb.toml --log-level debug > $R/percbridge.log 2>&1 &
SPID=$!
sleep 2
SP="T 90 python3 $BTVM_DIR/streaming.py"
BOTH="hci1=$V1 hci2=$MTK"
$SP snapshot > $R/base.json
for a in $V1 $MTK; do
  step pair-$a
  t=$(now)
  if T 60 $PB pair $a --timeout 30 --json > $R/pair-$a.json 2>&1; then stage pair-$a PASS "paired through the control API in $(since $t) s"
  else stage pair-$a FAIL "$(cat $R/pair-$a.json | tr '\n' ' ')"; fi
done
judged() {  # $1 stage, $2 limit s, $3 what `streaming.py wait` printed ("PASS back in X s …" or "FAIL …")
  secs=$(echo "$3" | sed -n 's/^PASS back in \([0-9.]*\) s.*/\1/p')
  if [ -n "$secs" ] && awk "BEGIN{exit !($secs <= $2)}"; then stage $1 PASS "$(echo "$3" | cut -d' ' -f2-) (limit $2 s)"
  else stage $1 FAIL "not within $2 s: $3"; fi
}
back() {  # $1 stage name, $2 trigger time (uptime), $3 limit s, $4… PERCs (default both)
  name=$1; t=$2; lim=$3; shift 3
  res=$($SP wait $R/base.json $t $lim ${@:-$BOTH}); rc=$?
  stage $name $(echo "$res" | cut -d' ' -f1) "$(echo "$res" | cut -d' ' -f2-)"
  [ $rc = 0 ]
}
step subscribe
back subscribe $t 30
# Armed waits for the stages with a trigger: `arm LIMIT [PERCS]` starts `streaming.py wait` in the
# background (the PERCs streaming, its app connected and watching), `fire` writes the trigger's
# time right before the trigger, `judge_back STAGE` or `armed_result` takes its line. Started
# after the trigger instead, its Python start, two percctl calls and an app's connect counted
# in the figure: 1.5-2 s in a TCG guest on a loaded CI host (the power stage's limit is 2 s).
arm() {
  lim=$1; shift
  rm -f $R/t0 $R/t0.tmp $R/t0.ready $R/wait.out
  $SP wait $R/base.json @$R/t0 $lim ${@:-$BOTH} > $R/wait.out 2>&1 & WPID=$!
  i=0; while [ ! -f $R/t0.ready ] && kill -0 $WPID 2>/dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
}
fire() { t=$(now); echo $t > $R/t0.tmp; mv $R/t0.tmp $R/t0; }
# `wait` in this shell (in a $(…) subshell it would not wait for the watcher, not its child).
armed_result() { wait $WPID; res=$(cat $R/wait.out); [ -n "$res" ] || res="FAIL the watcher printed nothing"; }
judge_back() {  # $1 stage name
  armed_result
  stage $1 $(echo "$res" | cut -d' ' -f1) "$(echo "$res" | cut -d' ' -f2-)"
}

# Traffic through serve: nothing lost (the service's own counters).
step traffic
$SP snapshot > $R/base.json
ctl hci1 'stream 10 200' >/dev/null; ctl hci2 'stream 10 200' >/dev/null
ctl hci1 'wait idle 30' >/dev/null; ctl hci2 'wait idle 30' >/dev/null
sleep 1
res=$($SP traffic $R/base.json 200 $BOTH)
stage traffic $(echo "$res" | cut -d' ' -f1) "$(echo "$res" | cut -d' ' -f2-)"
T 60 $PB status > $R/status.txt 2>&1; cat $R/status.txt

# Actuation: an app asks (WebSocket `actuate`), the service writes the PERC's actuator
# characteristic, the PERC sees the write.
step actuate
TID=$(T 60 $PB list --json | python3 -c "import json,sys
for t in json.loads(sys.stdin.read()):
    if str(t.get('address', '')).upper() == '$V1'.upper(): print(t['id'])")
t=$(now)
T 30 python3 - 8080 "$TID" > $R/actuate.log 2>&1 <<'PY'
import base64, json, os, socket, sys, time
port, tid = int(sys.argv[1]), int(sys.argv[2])
s = socket.create_connection(("127.0.0.1", port))
key = base64.b64encode(os.urandom(16)).decode()
s.sendall(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (port, key)).encode())
head = b""
while b"\r\n\r\n" not in head:
    head += s.recv(4096)
print(head.split(b"\r\n")[0].decode())
data = json.dumps({"type": "actuate", "tangible": tid, "led": "#ff0000"}).encode()
mask = os.urandom(4)
s.sendall(bytes([0x81, 0x80 | len(data)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
time.sleep(1)
PY
i=0; seen=
while [ $i -lt 30 ]; do
  seen=$(ctl hci1 status | python3 -c "import json,sys; st=json.loads(sys.stdin.read().split(' ', 1)[-1]); print(';'.join(st.get('actuator', [])))" 2>/dev/null)
  echo "$seen" | grep -q 'LED colour #ff0000' && break
  sleep 0.1; i=$((i+1))
done
if echo "$seen" | grep -q 'LED colour #ff0000'; then stage actuate PASS "tangible $TID: LED #ff0000 seen by the PERC $(since $t) s after the app asked"
else stage actuate FAIL "tangible '$TID', PERC saw '$seen'; app: $(cat $R/actuate.log | tr '\n' ' ')"; fi

for kind in "drop" "drop fast"; do
  step "$kind"
  $SP snapshot > $R/base.json
  arm 20
  fire; ctl hci1 "$kind" >/dev/null & cpid=$!; ctl hci2 "$kind" >/dev/null; wait $cpid
  judge_back "$(echo $kind | tr ' ' -)"
done

# SIGHUP with a changed registry: mtk-serial taken out (its link stops), then put back.
step sighup
cp $R/tangibles.json $R/tangibles.full.json
python3 - "$R/tangibles.json" "$MTK" <<'PY'
import json, sys
p, addr = sys.argv[1], sys.argv[2].upper()
d = json.load(open(p))
key = 'tangibles' if isinstance(d, dict) else None
items = d[key] if key else d
kept = [t for t in items if str(t.get('address', '')).upper() != addr]
if key: d[key] = kept
else: d = kept
json.dump(d, open(p + '.new', 'w'), indent=2)
PY
mv $R/tangibles.json.new $R/tangibles.json
t=$(now); kill -HUP $SPID
i=0; while [ $i -lt 50 ] && T 60 $PB status --json | grep -q "\"$MTK\""; do sleep 0.1; i=$((i+1)); done
if T 60 $PB status --json | grep -q "\"$MTK\""; then stage sighup-remove FAIL "mtk link still listed 5 s after SIGHUP"
else stage sighup-remove PASS "mtk link gone $(since $t) s after SIGHUP"; fi
$SP snapshot > $R/base.json
cp $R/tangibles.full.json $R/tangibles.json
t=$(now); kill -HUP $SPID
back sighup-add $t 20 hci2=$MTK

# A PERC that stops advertising: reported unreachable, no busy loop, back when it advertises.
step unreachable
$SP snapshot > $R/base.json
ctl hci1 'adv off' >/dev/null; ctl hci1 'drop fast' >/dev/null
sleep 8
cpu0=$(awk '{print $14+$15}' /proc/$SPID/stat)
sleep 5
cpu1=$(awk '{print $14+$15}' /proc/$SPID/stat)
ticks=$((cpu1 - cpu0))
st=$(T 60 $PB status --json | python3 -c "import json,sys; print([l['state'] for l in json.load(sys.stdin)['links'] if l['address'].upper()=='$V1'][0])")
arm 20 hci1=$V1
fire; ctl hci1 'adv on' >/dev/null
armed_result
if [ "$st" = unreachable ] && [ $ticks -lt 100 ] && echo "$res" | grep -q ^PASS; then
  stage unreachable PASS "status '$st' while away, ${ticks} CPU ticks in 5 s, $(echo "$res" | cut -d' ' -f2-) after adv on"
else stage unreachable FAIL "status '$st' while away, ticks=$ticks; after adv on: $res"; fi

# bluetoothd restarts near the end: on this guest kernel (6.1 + btvirt) a bluetoothd that closes its
# L2CAP sockets after links vanished can hit an oops (hci_chan_del from l2cap_sock_release)
# that takes bluetoothd with it; a harness limit, reported as such.
restart_bluetoothd() {  # $1 signal
  pid=$(pidof bluetoothd)
  kill -$1 $pid; i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
  if kill -0 $pid 2>/dev/null; then echo "bluetoothd $pid did not exit on $1 (harness limit: see dmesg)"; return 1; fi
  /usr/libexec/bluetooth/bluetoothd -n >> $R/bluetoothd-restarted.log 2>&1 &
  return 0
}
# Each restart is measured three times (a fresh kill each time, one `streaming.py wait` each):
# the stage passes when the median is within 3 s and none took over 6 s. One slow restart in
# three (a VM on a loaded CI host) does not fail CI; a service that is slow every time does.
for sig in KILL TERM; do
  figs=; bad=
  for run in 1 2 3; do
    step "bluetoothd-$sig run $run"
    k0=$(kfaults)
    $SP snapshot > $R/base.json
    if ! pidof bluetoothd >/dev/null; then bad="no bluetoothd before run $run (harness: $(dmesg | grep -c 'general protection\|Oops\|list_del corruption\|kernel BUG') kernel faults in dmesg)"; break
    fi
    arm 30
    if ! restart_bluetoothd $sig; then armed_result; bad="harness: bluetoothd did not exit in run $run ($(dmesg | grep -c 'general protection\|Oops\|list_del corruption\|kernel BUG') guest kernel faults in dmesg.txt)"; break; fi
    fire; armed_result
    echo "bluetoothd-$sig run $run: $res"
    k1=$(kfaults)
    [ "$k1" = "$k0" ] || { console "harness: the guest kernel logged $((k1 - k0)) link faults in bluetoothd-$sig run $run:"; dmesg | grep -E 'Ignoring HCI_Connection_Complete|ACL packet for unknown' | tail -2 | while IFS= read -r l; do console "dmesg| $l"; done; }
    secs=$(echo "$res" | sed -n 's/^PASS back in \([0-9.]*\) s.*/\1/p')
    [ -n "$secs" ] || { bad="run $run: $res"; break; }
    figs="$figs $secs"
    sleep 1
  done
  if [ -n "$bad" ]; then stage bluetoothd-$sig FAIL "$bad (runs so far:${figs:- none})"
  else
    med=$(printf '%s\n' $figs | sort -g | sed -n 2p); worst=$(printf '%s\n' $figs | sort -g | tail -1)
    if awk "BEGIN{exit !($med <= 3 && $worst <= 6)}"; then stage bluetoothd-$sig PASS "back in median $med s of$figs s (limit 3 s)"
    else stage bluetoothd-$sig FAIL "median $med s of$figs s (limit 3 s, none over 6 s)"; fi
  fi
done

# Adapter switched off and on, last: switching hci0 off crashed the guest kernel in 4 of 4
# runs so far (6.1 + btvirt: "list_del corruption" in hci_chan_del when bluetoothd releases
# an L2CAP socket; bluetoothd dies with it), also with the links dropped first. The PERCs
# stop advertising and drop their links, hci0 goes off while percbridge is reconnecting,
# they advertise again while it is off, and it comes back on.
step power-off-on
faults_before=$(dmesg | grep -c 'list_del corruption\|general protection\|kernel BUG')
$SP snapshot > $R/base.json
ctl hci1 'adv off' >/dev/null; ctl hci2 'adv off' >/dev/null
ctl hci1 'drop fast' >/dev/null; ctl hci2 'drop fast' >/dev/null
sleep 1
T 10 btmgmt --index 0 power off >/dev/null
ctl hci1 'adv on' >/dev/null; ctl hci2 'adv on' >/dev/null
sleep 2
st=$(T 60 $PB status --json | python3 -c "import json,sys; print(','.join(sorted(set(l['state'] for l in json.load(sys.stdin)['links']))))")
powered=$(T 10 btmgmt --index 0 info | grep -c 'current settings:.*powered')
arm 30
fire; T 10 btmgmt --index 0 power on >/dev/null
armed_result
if [ "$faults_before" != 0 ]; then stage power-off-on FAIL "harness: not measured, the guest kernel had faulted before this stage ($faults_before faults in dmesg.txt; bluetoothd's state is not to be trusted)"
elif ! pidof bluetoothd >/dev/null; then stage power-off-on FAIL "harness: bluetoothd died when hci0 was switched off ($(dmesg | grep -c 'list_del corruption\|general protection\|kernel BUG') guest kernel faults in dmesg.txt)"
elif [ "$st" = waiting-for-adapter ] && [ "$powered" = 0 ]; then judged power-off-on 2 "$res"
else stage power-off-on FAIL "while off: link states '$st', hci0 powered=$powered (the service must wait, not switch it on)"; fi
if [ "$(dmesg | grep -c 'list_del corruption\|general protection\|kernel BUG')" != 0 ]; then echo "harness: guest kernel fault during the power stage (dmesg.txt)"; fi


step sigterm
kill -TERM $SPID; i=0; while kill -0 $SPID 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
if kill -0 $SPID 2>/dev/null; then stage sigterm FAIL "still running 5 s after SIGTERM"; kill -KILL $SPID; else stage sigterm PASS "exited in $(awk "BEGIN{print $i/10}") s"; fi
exit $FAILED
