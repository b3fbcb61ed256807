#!/usr/bin/env python3
"""Is percbridge streaming from the PERCs again? Measured from the service's own counters.

The emulated PERC's `wait subscribed` cannot tell: bluetoothd keeps a bonded client's CCC
across links, so the PERC side stays "subscribed" while no link exists. This asks the
service instead (`percbridge status --json`: per link `state`, `link_ups`, `notifications`):
a PERC is back when its link came up again after the trigger AND a notification sent after
that reached an app: each PERC toggles its light every 20 ms, and one WebSocket app of the
service times the first frame with a new light value after the new link's first (the figure
is the service's, to within 20 ms: no polling of `status` in it).

  streaming.py snapshot > base.json                   # before the trigger
  streaming.py wait base.json T0 LIMIT hci1=ADDR ...  # T0: /proc/uptime at the trigger
  streaming.py wait base.json @FILE LIMIT hci1=ADDR ... & # armed before the trigger (below)
  streaming.py traffic base.json COUNT hci1=ADDR ...  # nothing lost since the snapshot
Prints one line; exit 0 when every PERC is back (all traffic arrived), 1 otherwise.

Armed (`@FILE` for T0, run in the background before the trigger): the PERCs are set streaming
and the app connects first, then FILE.ready is created; the hook writes /proc/uptime into FILE
right before the trigger. Started after the trigger instead, a Python start, two percctl calls
and an app's connect count in the figure: 1.5-2 s in a TCG guest on a loaded CI host, against
a 2 s limit.
"""
import base64, json, os, socket, struct, subprocess, sys, time

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
    limit = float(sys.argv[4])
    if sys.argv[3].startswith('@'):
        return wait(base, None, limit, percs(sys.argv[5:]), t0_file=sys.argv[3][1:])
    return wait(base, float(sys.argv[3]), limit, percs(sys.argv[5:]))


class AppClient:
    """A WebSocket app of the service (stdlib only): reads `frame` messages, answers pings."""

    def __init__(self, port, deadline):
        while True:
            try:
                self.s = socket.create_connection(('127.0.0.1', port), timeout=1)
                break
            except OSError:
                if uptime() > deadline:
                    raise
                time.sleep(0.05)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall(('GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n'
                        'Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n' % (port, key)).encode())
        self.buf = b''
        while b'\r\n\r\n' not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise OSError('closed during the upgrade')
            self.buf += chunk
        head, self.buf = self.buf.split(b'\r\n\r\n', 1)
        if b' 101 ' not in head.split(b'\r\n')[0]:
            raise OSError(head.split(b'\r\n')[0].decode())

    def _frame(self):
        if len(self.buf) < 2:
            return None
        op, n, i = self.buf[0] & 0x0F, self.buf[1] & 0x7F, 2
        if n == 126:
            if len(self.buf) < 4:
                return None
            n, i = struct.unpack('>H', self.buf[2:4])[0], 4
        elif n == 127:
            if len(self.buf) < 10:
                return None
            n, i = struct.unpack('>Q', self.buf[2:10])[0], 10
        if len(self.buf) < i + n:
            return None
        payload, self.buf = self.buf[i:i + n], self.buf[i + n:]
        return op, payload

    def next(self, timeout):
        """The next text message (parsed JSON) and its receive time, or (None, None)."""
        self.s.settimeout(max(0.01, timeout))
        while True:
            f = self._frame()
            if f is not None:
                op, payload = f
                if op == 9:
                    mask = os.urandom(4)
                    self.s.sendall(bytes([0x8A, 0x80 | len(payload)]) + mask
                                   + bytes(b ^ mask[j % 4] for j, b in enumerate(payload)))
                if op == 1:
                    return json.loads(payload), uptime()
                if op == 8:
                    return None, None
                continue
            try:
                chunk = self.s.recv(65536)
            except socket.timeout:
                return None, None
            if not chunk:
                return None, None
            self.buf += chunk


ARMING_LIMIT = 30  # seconds an armed wait may wait for its trigger


def wait(base, t0, limit, todo_list, t0_file=None):
    """Each PERC toggles its light every 20 ms; one app of the service watches its frames. A PERC
    is back at the first frame after its link came up again whose light value differs from one
    seen since then (a notification after the new link's first read), and `status` counts a new
    link-up. Event-driven: no polling between the service's answer and the figure."""
    todo = {addr.upper(): adapter for adapter, addr in todo_list}
    deadline = t0 + limit if t0_file is None else uptime() + ARMING_LIMIT
    for adapter in todo.values():
        ctl(adapter, 'stream 20 %d' % int((limit + (ARMING_LIMIT if t0_file else 0)) * 50 + 100))
    up_at, back, seen_down, last, changed = {}, {}, set(), {}, {}
    try:
        while True:
            app = AppClient(8080, deadline)
            hello, _ = app.next(max(0.1, deadline - uptime()))
            ids = {t['id']: str(t.get('address', '')).upper() for t in (hello or {}).get('tangibles', [])}
            # A PERC added to the registry (SIGHUP) is in the hello of apps that connect after it.
            if set(todo) <= set(ids.values()) or uptime() >= deadline:
                break
            app.s.close()
            time.sleep(0.1)
        connected_at = uptime()
        if t0_file is not None:
            # Armed: say so, then read frames (an app that stops reading is dropped as slow)
            # until the hook has written the trigger's time. Only a PERC's going down counts
            # before it.
            open(t0_file + '.ready', 'w').close()
            while t0 is None and uptime() < deadline:
                try:
                    with open(t0_file) as f:
                        t0 = float(f.read().split()[0])
                    break
                except (OSError, ValueError, IndexError):
                    pass
                msg, _ = app.next(0.02)
                for t in (msg or {}).get('tangibles', []) if (msg or {}).get('type') == 'frame' else []:
                    if t.get('state') == 'notInRange' and ids.get(t.get('id')) in todo:
                        seen_down.add(ids[t['id']])
            if t0 is None:
                print('FAIL armed, but no trigger within %d s' % ARMING_LIMIT)
                return 1
            deadline, connected_at = t0 + limit, max(connected_at, t0)
        while len(back) < len(todo) and uptime() < deadline:
            msg, at = app.next(min(0.5, max(0.01, deadline - uptime())))
            if msg is None or msg.get('type') != 'frame':
                continue
            for t in msg.get('tangibles', []):
                addr = ids.get(t.get('id'))
                if addr not in todo or addr in back:
                    continue
                if t.get('state') == 'notInRange':
                    seen_down.add(addr)
                    up_at.pop(addr, None)
                    last.pop(addr, None)
                    changed[addr] = False
                    continue
                if t0_file is not None and addr not in seen_down:
                    continue  # armed: its app saw it before the trigger, so it must see it go down
                up_at.setdefault(addr, at)
                light = (t.get('sensors') or {}).get('light')
                if light is None:
                    continue
                if addr in last and light != last[addr]:
                    changed[addr] = True
                last[addr] = light
                if changed.get(addr):
                    back[addr] = at
            # A PERC never seen down here came back before the app connected: count it only once
            # `status` shows its new link.
            pending = [a for a in back if a not in seen_down]
            if pending:
                now = links()
                for a in pending:
                    if now.get(a, {}).get('link_ups', 0) <= base.get(a, {}).get('link_ups', 0):
                        del back[a]
                    else:
                        seen_down.add(a)
                        up_at[a] = min(up_at.get(a, connected_at), back[a])
    except OSError as e:
        print('FAIL the app could not watch the service: %s' % e)
        return 1
    finally:
        for adapter in todo.values():
            ctl(adapter, 'stop')
    parts = []
    for adapter, addr in todo_list:
        a = addr.upper()
        if a in back:
            parts.append('%s link up %.2f s, streaming %.2f s' % (adapter, up_at[a] - t0, back[a] - t0))
        else:
            parts.append('%s not streaming within %.0f s (%s)' % (adapter, limit,
                         'link up %.2f s, no new light value' % (up_at[a] - t0) if a in up_at
                         else 'its app never saw it go down' if t0_file is not None and a not in seen_down
                         else 'link not up again'))
    ok = len(back) == len(todo)
    worst = max(back.values()) - t0 if ok and back else 0
    print(('PASS back in %.2f s: ' % worst if ok else 'FAIL ') + '; '.join(parts))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
