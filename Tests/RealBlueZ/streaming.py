#!/usr/bin/env python3
"""Is percbridge streaming from the PERCs again? Measured from the service's own counters.

The emulated PERC's `wait subscribed` cannot tell: bluetoothd keeps a bonded client's CCC
across links, so the PERC side stays "subscribed" while no link exists. This asks the
service instead (`percbridge status --json`: per link `state`, `link_ups`, `notifications`):
a PERC is back when its link came up again after the trigger AND a notification sent after
that arrived (the PERC is made to send one by toggling its light).

  streaming.py snapshot > base.json                   # before the trigger
  streaming.py wait base.json T0 LIMIT hci1=ADDR ...  # T0: /proc/uptime at the trigger
  streaming.py traffic base.json COUNT hci1=ADDR ...  # nothing lost since the snapshot
Prints one line; exit 0 when every PERC is back (all traffic arrived), 1 otherwise.
"""
import json, os, subprocess, sys, time

PB = os.path.join(os.environ.get('BTVM_DIR', '.'), 'percbridge')
PERCCTL = os.environ.get('PERCCTL', 'percctl')


def uptime():
    with open('/proc/uptime') as f:
        return float(f.read().split()[0])


def links():
    try:
        out = subprocess.run([PB, 'status', '--json'], capture_output=True, text=True, timeout=10).stdout
        return {l['address'].upper(): l for l in json.loads(out).get('links', [])}
    except Exception:
        return {}


def ctl(adapter, cmd):
    subprocess.run([PERCCTL, adapter, cmd], capture_output=True, timeout=10)


def percs(args):
    return [tuple(a.split('=', 1)) for a in args]


def main():
    mode = sys.argv[1]
    if mode == 'snapshot':
        print(json.dumps(links()))
        return 0
    base = json.load(open(sys.argv[2]))
    if mode == 'traffic':
        count = int(sys.argv[3])
        now = links()
        parts, ok = [], True
        for adapter, addr in percs(sys.argv[4:]):
            b, n = base.get(addr.upper(), {}), now.get(addr.upper(), {})
            got = n.get('notifications', 0) - b.get('notifications', 0)
            lost = n.get('lost', 0) - b.get('lost', 0)
            ok = ok and got >= count and lost == 0 and n.get('link_ups') == b.get('link_ups')
            parts.append('%s %d sent/%d received, %d lost, link-ups %s→%s' % (
                adapter, count, got, lost, b.get('link_ups'), n.get('link_ups')))
        print(('PASS ' if ok else 'FAIL ') + '; '.join(parts))
        return 0 if ok else 1
    t0, limit = float(sys.argv[3]), float(sys.argv[4])
    todo = {addr.upper(): adapter for adapter, addr in percs(sys.argv[5:])}
    up_at, notes_at_up, back = {}, {}, {}
    while todo and uptime() - t0 < limit:
        now = links()
        for addr, adapter in list(todo.items()):
            l, b = now.get(addr, {}), base.get(addr, {})
            if l.get('state') != 'connected' or l.get('link_ups', 0) <= b.get('link_ups', 0):
                continue
            if addr not in up_at:
                up_at[addr], notes_at_up[addr] = uptime() - t0, l.get('notifications', 0)
            elif l.get('notifications', 0) > notes_at_up[addr]:
                back[adapter] = uptime() - t0
                del todo[addr]
                continue
            ctl(adapter, 'toggle light')
        time.sleep(0.1)
    parts = []
    for adapter, addr in percs(sys.argv[5:]):
        a = addr.upper()
        if adapter in back:
            parts.append('%s link up %.2f s, streaming %.2f s' % (adapter, up_at[a], back[adapter]))
        else:
            parts.append('%s not streaming within %.0f s (%s)' % (adapter, limit,
                         'link up %.2f s, no notification' % up_at[a] if a in up_at else 'link not up again'))
    ok = not todo
    worst = max(back.values()) if ok and back else 0
    print(('PASS back in %.2f s: ' % worst if ok else 'FAIL ') + '; '.join(parts))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
