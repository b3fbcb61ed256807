// A TUIO 1.1 sender and UDP receiver in one Python process, around `percbridge serve` (event-driven frames tests).
import Foundation
import PercTestSupport

/// `latency`: waits for an output bundle (a frame was just cut), moves the finger at once and
/// times until a `/tuio/2Dcur set` with the new position leaves serve: in fixed mode that is
/// the next tick, a whole period later; in event mode it is the input's own frame.
/// `burst`: moves the finger at `rate` Hz for `seconds`, counting the output bundles and
/// checking their fseq, and reports where the finger was last seen.
enum TUIOProbe {
    static let script = #"""
import json, socket, sys, threading, time
from pythonosc.osc_bundle_builder import OscBundleBuilder, IMMEDIATELY
from pythonosc.osc_message_builder import OscMessageBuilder
from pythonosc.osc_packet import OscPacket
in_port, out_port, mode, n, rate = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); rx.bind(("127.0.0.1", out_port)); rx.settimeout(3)
tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
def msg(*args):
    m = OscMessageBuilder(address="/tuio/2Dcur")
    for a in args: m.add_arg(a)
    return m.build()
def send(fseq, x):
    b = OscBundleBuilder(IMMEDIATELY)
    for m in (msg("source", "probe"), msg("alive", 7), msg("set", 7, x, 0.5, 0.0, 0.0, 0.0), msg("fseq", fseq)): b.add_content(m)
    tx.sendto(b.build().dgram, ("127.0.0.1", in_port))
def cursor_bundle(data):
    """(fseq, [x of each 2Dcur set]) of a TUIO 1.1 cursor bundle, else None."""
    try: msgs = [m.message for m in OscPacket(data).messages]
    except Exception: return None
    if not msgs or msgs[0].address != "/tuio/2Dcur": return None
    xs = [m.params[2] for m in msgs if m.params and m.params[0] == "set"]
    return msgs[-1].params[1], xs
report = {"latencies_ms": [], "bundles": 0, "fseq_bad": 0, "fseq_first": None, "fseq_last": None, "last_x": None, "sent": 0}
fseq = 1
send(fseq, 0.2)
if mode == "latency":
    for i in range(n):
        rx.setblocking(False)
        try:
            while True: rx.recv(65536)
        except BlockingIOError: pass
        rx.settimeout(3)
        while cursor_bundle(rx.recv(65536)) is None: pass  # a frame was just cut
        x = 0.3 + 0.02 * i
        fseq += 1
        t0 = time.perf_counter(); send(fseq, x)
        while True:
            b = cursor_bundle(rx.recv(65536))
            if b and any(abs(v - x) < 0.002 for v in b[1]): break
        report["latencies_ms"].append((time.perf_counter() - t0) * 1000)
else:
    time.sleep(0.5)
    rx.setblocking(False)
    try:
        while True: rx.recv(65536)
    except BlockingIOError: pass
    rx.settimeout(0.5)
    stop = [False]
    def receive():
        last = 0
        while not stop[0]:
            try: b = cursor_bundle(rx.recv(65536))
            except socket.timeout: continue
            if b is None: continue
            report["bundles"] += 1
            if b[0] <= 0 or b[0] <= last: report["fseq_bad"] += 1
            last = b[0]
            if report["fseq_first"] is None: report["fseq_first"] = b[0]
            report["fseq_last"] = b[0]
            if b[1]: report["last_x"] = b[1][-1]
    th = threading.Thread(target=receive); th.start()
    start = time.perf_counter()
    for i in range(n):
        while time.perf_counter() < start + i / rate: pass
        fseq += 1
        send(fseq, 0.2 + 0.6 * i / (n - 1))
    report["sent"] = n
    report["send_seconds"] = time.perf_counter() - start
    report["last_sent_x"] = 0.8
    # The last position within 2 s (a debug serve on a loaded machine may still be working
    # through the burst 0.4 s after it), then 0.1 s more for anything after it.
    until = time.perf_counter() + 2
    while time.perf_counter() < until and abs((report["last_x"] or 0) - 0.8) >= 0.002: time.sleep(0.01)
    time.sleep(0.1)
    stop[0] = True; th.join()
    report["window_seconds"] = time.perf_counter() - start
print(json.dumps(report))
"""#

    /// Runs the probe to the end and returns its JSON report.
    static func run(tuioIn: Int, tuioOut: Int, mode: String, count: Int, rate: Double = 0) async throws -> [String: Any] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tuioprobe-\(UUID().uuidString).py")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: WSProbe.python)
        p.arguments = [file.path, String(tuioIn), String(tuioOut), mode, String(count), String(rate)]
        let out = Pipe()
        p.standardOutput = out
        let err = Pipe()
        p.standardError = err
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        let data = try await offPool { () -> Data in
            let d = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return d
        }
        guard let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw ProbeError(message: "the TUIO probe printed no report: \(e.suffix(600))")
        }
        return obj
    }

    struct ProbeError: Error, CustomStringConvertible { let message: String; var description: String { message } }
}
