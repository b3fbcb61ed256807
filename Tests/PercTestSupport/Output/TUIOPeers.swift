// Independent TUIO receivers for the tests: python-tuio (a TUIO 1.1 client) and a python-osc bundle checker.
import Foundation

/// Runs both peers in one Python process until a `STOP` datagram on the raw port, or `seconds`; prints a JSON summary:
/// the python-tuio client's objects and cursors at the end, and the bundle-order checker's
/// findings (every bundle `source, alive, set…, fseq`; fseq positive and never decreasing;
/// TUIO 2.0 `frm` first and `alv` last).
public enum TUIOPeers {
    public static let script = #"""
import json, os, signal, socket, sys, threading, time
report_fd = os.dup(1)
sys.stdout = open(os.devnull, "w")  # python-tuio prints a line per bundle
from pythonosc.osc_packet import OscPacket
from pythontuio import TuioClient
tuio_port, raw_port, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
client = TuioClient(("127.0.0.1", tuio_port))
threading.Thread(target=client.start, daemon=True).start()
raw = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
raw.bind(("127.0.0.1", raw_port))
raw.settimeout(0.2)
report = {"bundles11": 0, "bundles20": 0, "violations": [], "fseq_first": None, "fseq_last": None,
          "frm_last": None, "sets": 0}
last_fseq = {}
stop = [False]
signal.signal(signal.SIGTERM, lambda *a: stop.__setitem__(0, True))
end = time.time() + seconds
def bad(msg):
    if len(report["violations"]) < 20: report["violations"].append(msg)
while not stop[0] and time.time() < end:
    try:
        data = raw.recv(65536)
    except socket.timeout:
        continue
    if data == b"STOP":
        break
    try:
        msgs = [m.message for m in OscPacket(data).messages]
    except Exception as e:
        bad(f"not an OSC packet ({len(data)} bytes): {e!r}"); continue
    addrs = {m.address for m in msgs}
    if all(a.startswith("/tuio/") for a in addrs):
        if len(addrs) != 1: bad(f"mixed profiles in one bundle: {addrs}"); continue
        report["bundles11"] += 1
        kinds = [m.params[0] for m in msgs]
        if kinds[0] != "source" or kinds[1] != "alive" or kinds[-1] != "fseq" or any(k != "set" for k in kinds[2:-1]):
            bad(f"order {kinds}")
        report["sets"] += kinds.count("set")
        fseq = msgs[-1].params[1]
        prof = msgs[0].address
        if fseq <= 0: bad(f"fseq {fseq} not positive")
        if prof in last_fseq and fseq < last_fseq[prof]: bad(f"fseq went back {last_fseq[prof]} -> {fseq}")
        last_fseq[prof] = fseq
        if report["fseq_first"] is None: report["fseq_first"] = fseq
        report["fseq_last"] = fseq
    else:
        report["bundles20"] += 1
        if msgs[0].address != "/tuio2/frm" or msgs[-1].address != "/tuio2/alv": bad(f"2.0 order {[m.address for m in msgs]}")
        report["frm_last"] = msgs[0].params[0]
# The client's thread may still be updating its lists: copy them, again if they changed under us.
for attempt in range(20):
    try:
        report["objects"] = [{"session": o.session_id, "class": o.class_id, "x": o.position[0], "y": o.position[1], "angle": o.angle}
                             for o in list(client.objects)]
        report["cursors"] = [{"session": c.session_id, "x": c.position[0], "y": c.position[1]} for c in list(client.cursors)]
        break
    except Exception as e:
        report["copy_error"] = repr(e)
        time.sleep(0.01)
os.write(report_fd, (json.dumps(report) + "\n").encode())
os._exit(0)  # the client's server thread would keep the interpreter alive
"""#

    public static func start(tuioPort: Int, rawPort: Int, seconds: Double) throws -> (Process, Pipe) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tuiopeers-\(UUID().uuidString).py")
        try script.write(to: file, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: WSProbe.python)
        p.arguments = [file.path, String(tuioPort), String(rawPort), String(seconds)]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out  // a crash's traceback ends up in the failure message (`report(_:)`)
        try p.run()
        return (p, out)
    }

    /// The peers' JSON summary: the last line of their output that is a JSON object; when there
    /// is none (the script died), an error that carries what it printed.
    public static func report(_ output: Data) throws -> [String: Any] {
        let text = String(decoding: output, as: UTF8.self)
        for line in text.split(separator: "\n").reversed() where line.hasPrefix("{") {
            if let r = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] { return r }
        }
        struct NoReport: Error, CustomStringConvertible { let description: String }
        throw NoReport(description: "the TUIO peers printed no report; their output: \(text.suffix(3000))")
    }

    /// Tells the peers script to stop and report (SIGTERM may be ignored under the test runner).
    public static func sendStop(to port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        let stop = Array("STOP".utf8)
        _ = withUnsafePointer(to: &addr) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, stop, stop.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// A free UDP port on loopback (bound and released; a race is unlikely on a test machine).
    public static func freeUDPPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
