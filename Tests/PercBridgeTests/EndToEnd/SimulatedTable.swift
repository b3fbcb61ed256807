// End-to-end support: the physical side of a PERC table, played by Python processes nobody in the service wrote.
import Foundation
import Glibc
import MTKTangibles
import PercTestSupport

/// Two independent actors around `percbridge serve`:
/// - `world`: the simulated display and the PERCs' sensors. A WebSocket app (it draws the
///   light-check overlay and reports `presented`) that also drives the BlueZ emulator
///   over D-Bus: a PERC's field sensor goes on when its marker traces show up in the
///   service's frames, its light sensor follows the overlay patch under it (black
///   background) as HARDWARE-MODEL.md says: 1–4 frames (60 Hz) after the overlay is
///   presented plus one BLE connection interval (30 ms) and 1–3 ms of host stack, from a
///   seeded generator. It sends a heartbeat every 0.5 s (which also re-announces its state
///   after a reconnect, as PERC firmware does).
/// - `tuioSender`: a touch tracker sending TUIO 1.1 `/tuio/2Dcur` with python-osc.
enum SimulatedTable {
    struct Perc {
        var address: String
        var profile: PercProfile
        var definition: TangibleDefinition
        var pose: Pose

        var markers: [Vec2] { definition.markers.map { pose.apply($0) } }
        var sensor: Vec2 { pose.apply(definition.lightSensorOffset ?? .zero) }

        var json: [String: Any] {
            ["address": address, "profile": profile.rawValue,
             "markers": markers.map { [$0.x, $0.y] }, "sensor": [sensor.x, sensor.y]]
        }
    }

    static let world = #"""
import base64, json, math, os, random, socket, struct, sys, time
import dbus
args = json.loads(sys.argv[1])
bus = dbus.bus.BusConnection(args["bus"])
ctl = dbus.Interface(bus.get_object("org.percbridge.BlueZEmulator", "/org/percbridge/BlueZEmulator"),
                     "org.percbridge.BlueZEmulator1")
def out(obj): print(json.dumps(obj), flush=True)

class Socket:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % key).encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            self.buf += self.s.recv(4096)
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        assert b" 101 " in head.split(b"\r\n")[0], head
    def send(self, obj):
        data, mask = json.dumps(obj).encode(), os.urandom(4)
        n = len(data)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0xFE]) + struct.pack(">H", n))
        self.s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
    def frame(self):
        if len(self.buf) < 2: return None
        n, at = self.buf[1] & 0x7F, 2
        if n == 126: n, at = struct.unpack(">H", self.buf[2:4])[0], 4
        elif n == 127: n, at = struct.unpack(">Q", self.buf[2:10])[0], 10
        if len(self.buf) < at + n: return None
        op, data, self.buf = self.buf[0] & 0x0F, self.buf[at:at + n], self.buf[at + n:]
        return (op, data)
    def recv(self, timeout):
        end = time.time() + timeout
        while True:
            f = self.frame()
            if f: 
                if f[0] == 1: return json.loads(f[1])
                continue
            left = end - time.time()
            if left <= 0: return None
            self.s.settimeout(left)
            try:
                chunk = self.s.recv(65536)
            except socket.timeout:
                return None
            if not chunk: raise SystemExit("service closed the WebSocket")
            self.buf += chunk

percs = args["percs"]
# What each sensor reported last, and what it sees now (it reports that after its latency).
light = {p["address"]: 0 for p in percs}
seen = dict(light)
pending = []
rng = random.Random(args.get("seed", 1))
placed = set()
counts = {"presented": 0, "light_changes": 0, "sent": 0, "unsent": 0}
def notify(p):
    a, l = p["address"], light[p["address"]]
    try:
        if p["profile"] == "perc-v1":
            ok = ctl.SendV1(a, dbus.Byte(1), dbus.Byte(l), dbus.UInt16(0))
        else:
            ok = ctl.SendMtk(a, "[2:0:1][3:0:%d]" % l, dbus.UInt32(0)) > 0
    except dbus.DBusException:
        ok = False
    counts["sent" if ok else "unsent"] += 1
ws = Socket(args["port"])
ws.send({"type": "hello", "protocol": 1, "name": "simulated display", "draws_overlay": True})
end, beat, report = time.time() + args["seconds"], 0, 0
last = None
# The display: the newest overlay received shows at the next refresh (60 Hz), so one
# superseded within a refresh is never seen, as on a real screen.
refresh, next_refresh, newest = 1 / 60, time.time(), None
# A sensor answers in order: a change no sooner than the one before it.
last_due = {p["address"]: 0.0 for p in percs}
def present(m):
    ws.send({"type": "presented", "overlay": m["overlay"]})
    counts["presented"] += 1
    for p in percs:
        if p["address"] not in placed: continue
        sx, sy = p["sensor"]
        colour, under = 0, []
        for patch in m["patches"]:
            if math.hypot(patch["x"] - sx, patch["y"] - sy) <= patch["radius"]:
                colour = 1 if patch["colour"] == "white" else 0
                under.append([patch.get("tangible"), patch.get("purpose"), patch["colour"]])
        if under:
            out({"event": "sensor-under", "address": p["address"], "overlay": m["overlay"], "patches": under})
        if colour != seen[p["address"]]:
            seen[p["address"]] = colour
            delay = rng.randint(1, 4) / 60 + rng.uniform(0, 0.030) + rng.uniform(0.001, 0.003)
            due = max(time.time() + delay, last_due[p["address"]])
            last_due[p["address"]] = due
            pending.append((due, p["address"], colour))
while time.time() < end:
    soonest = min([d for d, _, _ in pending] + ([next_refresh] if newest else []), default=time.time() + 0.05)
    m = ws.recv(max(0.0, min(0.05, soonest - time.time())))
    if m and m["type"] == "frame":
        last = m
        pts = [(q["x"], q["y"]) for q in m.get("pointers", [])]
        for p in percs:
            if p["address"] in placed: continue
            if all(any(math.hypot(x - mx, y - my) < 3 for x, y in pts) for mx, my in p["markers"]):
                placed.add(p["address"])
                notify(p)
                out({"event": "placed", "address": p["address"], "frame": m["frame"]})
    elif m and m["type"] == "overlay":
        newest = m
    now = time.time()
    if now >= next_refresh:
        while next_refresh <= now: next_refresh += refresh
        if newest:
            present(newest)
            newest = None
    for due, address, colour in sorted(q for q in pending if q[0] <= now):
        pending.remove((due, address, colour))
        if colour != light[address]:
            light[address] = colour
            counts["light_changes"] += 1
            notify(next(p for p in percs if p["address"] == address))
    if now >= beat:
        beat = now + 0.5
        for p in percs:
            if p["address"] in placed: notify(p)
    if now >= report:
        report = now + 1
        states = {t["name"]: t["state"] for t in (last or {}).get("tangibles", [])}
        out(dict(counts, event="status", states=states))
"""#

    static let tuioSender = #"""
import json, sys, time
from pythonosc.udp_client import SimpleUDPClient
from pythonosc.osc_bundle_builder import OscBundleBuilder, IMMEDIATELY
from pythonosc.osc_message_builder import OscMessageBuilder
args = json.loads(sys.argv[1])
w, h = args["surface"]
c = SimpleUDPClient("127.0.0.1", args["port"])
def msg(*a):
    m = OscMessageBuilder(address="/tuio/2Dcur")
    for x in a: m.add_arg(x)
    return m.build()
fseq, start = 1, time.time()
end = start + args["seconds"]
while time.time() < end:
    t = time.time() - start
    # [id, x, y, from] or [id, x, y, from, until] (seconds since the start)
    live = [(c[0], c[1], c[2]) for c in args["contacts"] if t >= c[3] and (len(c) < 5 or t < c[4])]
    b = OscBundleBuilder(IMMEDIATELY)
    b.add_content(msg("source", "python-osc"))
    b.add_content(msg("alive", *[sid for sid, _, _ in live]))
    for sid, x, y in live:
        b.add_content(msg("set", sid, x / w, y / h, 0.0, 0.0, 0.0))
    b.add_content(msg("fseq", fseq))
    c.send(b.build())
    fseq += 1
    time.sleep(1 / 60)
"""#

    /// Starts `script` with `.venv`'s Python and one JSON argument; stdout to a pipe.
    static func start(_ script: String, _ args: [String: Any], in dir: URL, name: String) throws -> TestProcess {
        let file = dir.appendingPathComponent(name)
        try script.write(to: file, atomically: true, encoding: .utf8)
        let json = String(decoding: try JSONSerialization.data(withJSONObject: args), as: UTF8.self)
        return try TestProcess(WSProbe.python, [file.path, json])
    }
}

extension TestProcess {
    /// What the process printed so far (stdout, then stderr), without waiting for more.
    func output() -> String {
        let fds = [stdout.fileHandleForReading.fileDescriptor, stderr.fileHandleForReading.fileDescriptor]
        var text = ""
        for fd in fds {
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                text += String(decoding: buffer[0..<n], as: UTF8.self)
            }
            _ = fcntl(fd, F_SETFL, flags)
        }
        return text
    }
}
