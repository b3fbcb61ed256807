// Real UDP/TCP packets from independent peers (python-osc, liblo's oscsend/oscsendfile, Python
// sockets) into the TUIO and JSON input sources.
import Foundation
import Synchronization
import Testing
import MTKTangibles
@testable import PercInput
import PercTestSupport

final class Collected: Sendable {
    let updates = Mutex<[ContactUpdate]>([])
    var sink: @Sendable ([ContactUpdate]) -> Void { { u in self.updates.withLock { $0.append(contentsOf: u) } } }
    var all: [ContactUpdate] { updates.withLock { $0 } }
    /// Waits (up to 10 s) until `count` updates arrived.
    func wait(for count: Int) async throws -> [ContactUpdate] {
        for _ in 0..<1000 where all.count < count { try await Task.sleep(for: .milliseconds(10)) }
        return all
    }
}

@Suite(.serialized) struct NetworkInputTests {
    static let surface = Vec2(1000, 500)
    /// python-osc sender to the port in argv[1]; `bundle(msgs)` builds one /tuio/2Dcur bundle.
    static let pythonOscPreamble = """
        import sys
        from pythonosc.udp_client import SimpleUDPClient
        from pythonosc.osc_bundle_builder import OscBundleBuilder, IMMEDIATELY
        from pythonosc.osc_message_builder import OscMessageBuilder
        c = SimpleUDPClient("127.0.0.1", int(sys.argv[1]))
        def bundle(msgs):
            b = OscBundleBuilder(IMMEDIATELY)
            for args in msgs:
                m = OscMessageBuilder("/tuio/2Dcur")
                for a in args: m.add_arg(a)
                b.add_content(m.build())
            return b.build()

        """

    @Test func pythonOscTUIO11BundlesBecomeContacts() async throws {
        let source = UDPTUIOSource(host: "127.0.0.1", port: 0, surfaceSize: Self.surface)
        let got = Collected()
        let port = try await source.bind(sink: got.sink)
        defer { Task { await source.close() } }
        let script = Self.pythonOscPreamble + """
        def frame(fseq, alive, sets):
            msgs = [["source", "pyosc@test"], ["alive"] + alive] + [["set", s, x, y, 0.0, 0.0, 0.0] for s, x, y in sets] + [["fseq", fseq]]
            c.send(bundle(msgs))
        frame(1, [3, 4], [(3, 0.5, 0.25), (4, 0.1, 0.1)])
        frame(2, [3, 4], [(3, 0.75, 0.25)])
        frame(2, [3], [])          # duplicate: dropped
        frame(3, [4], [])
        """
        let r = try await Helper.runAsync(Helper.python, ["-c", script, "\(port)"])
        #expect(r.status == 0, "\(r.stderr)")
        let u = try await got.wait(for: 4)
        #expect(u.map(\.phase) == [.begin, .begin, .move, .end])
        #expect(u.map(\.contactID) == [3, 4, 3, 3])
        #expect(u[0].position == Vec2(500, 125) && u[2].position == Vec2(750, 125))
        #expect(u[0].origin == InputOrigin(kind: .tuio, device: "pyosc@test"))
        #expect(source.framesDropped == 1)
        #expect(u.allSatisfy { $0.arrival > 0 && $0.time == $0.arrival })
    }

    @Test func aTUIOBundleLargerThan2KiBArrivesWhole() async throws {
        // 60 fingers in one python-osc bundle (about 3.5 KiB): every one must begin.
        let source = UDPTUIOSource(host: "127.0.0.1", port: 0, surfaceSize: Self.surface)
        let got = Collected()
        let port = try await source.bind(sink: got.sink)
        defer { Task { await source.close() } }
        let script = Self.pythonOscPreamble + """
        ids = list(range(1, 61))
        msgs = [["source", "big@test"], ["alive"] + ids] + [["set", s, s / 100.0, 0.5, 0.0, 0.0, 0.0] for s in ids] + [["fseq", 1]]
        data = bundle(msgs)
        assert data.size > 2048, data.size
        c.send(data)
        print(data.size)
        """
        let r = try await Helper.runAsync(Helper.python, ["-c", script, "\(port)"])
        #expect(r.status == 0, "\(r.stderr)")
        let u = try await got.wait(for: 60)
        #expect(u.count == 60 && u.allSatisfy { $0.phase == .begin })
        let ids: Set<Int64> = Set(u.map { Int64($0.contactID) })
        #expect(ids == Set((1...60).map { Int64($0) }))
        #expect(source.badInput.total == 0, "\(source.badInput)")
    }

    @Test func oscsendfileBundlesAndOscsendMessages() async throws {
        let source = UDPTUIOSource(host: "127.0.0.1", port: 0, surfaceSize: Self.surface)
        let got = Collected()
        let port = try await source.bind(sink: got.sink)
        defer { Task { await source.close() } }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-osc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // oscdump's line format; lines with one time tag are sent as one bundle.
        let file = dir.appendingPathComponent("frames.txt")
        try """
        eeacdae7.a8667f90 /tuio/2Dcur si "alive" 8
        eeacdae7.a8667f90 /tuio/2Dcur sifffff "set" 8 0.200000 0.400000 0.000000 0.000000 0.000000
        eeacdae7.a8667f90 /tuio/2Dcur si "fseq" 41
        eeacdae7.b8667f90 /tuio/2Dcur s "alive"
        eeacdae7.b8667f90 /tuio/2Dcur si "fseq" 42

        """.write(to: file, atomically: true, encoding: .utf8)
        let r = try await Helper.runAsync("/usr/bin/oscsendfile", ["127.0.0.1", "\(port)", file.path])
        #expect(r.status == 0, "\(r.stderr)")
        let u = try await got.wait(for: 2)
        #expect(u.map(\.phase) == [.begin, .end] && u.allSatisfy { $0.contactID == 8 })
        #expect(abs(u[0].position.x - 200) < 1e-3 && abs(u[0].position.y - 200) < 1e-3)
        // A lone message is valid OSC but not a TUIO frame: counted, nothing emitted.
        let s = try await Helper.runAsync("/usr/bin/oscsend", ["127.0.0.1", "\(port)", "/tuio/2Dcur", "sifffff", "set", "9", "0.5", "0.5", "0", "0", "0"])
        #expect(s.status == 0)
        for _ in 0..<200 where source.badInput.count("TUIO bundle without fseq") == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(source.badInput.count("TUIO bundle without fseq") == 1)
        #expect(got.all.count == 2)
    }

    @Test func mtkJSONFeedOverTCPInPiecesAndJSONOverUDP() async throws {
        let tcp = JSONInputSource(transport: .tcp, host: "127.0.0.1", port: 0, surfaceSize: Self.surface)
        let udp = JSONInputSource(transport: .udp, host: "127.0.0.1", port: 0, surfaceSize: Self.surface)
        let got = Collected()
        let tport = try await tcp.bind(sink: got.sink)
        let uport = try await udp.bind(sink: got.sink)
        defer { Task { await tcp.close(); await udp.close() } }
        let script = """
        import socket, sys, time, json
        t = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        a = json.dumps({"Touches": [{"traceID": 1, "state": "beginning", "position": {"x": 10, "y": 20}, "timestamp": 100.0, "size": 8}]})
        b = json.dumps({"Touches": [{"traceID": 1, "state": "ending", "position": [11, 21], "timestamp": 100.1, "majorAxis": 9, "minorAxis": 7, "rotation": 0.5}]})
        data = (a + b + "\\n garbage").encode()
        for i in range(0, len(data), 7):   # split across TCP segments
            t.sendall(data[i:i+7]); time.sleep(0.005)
        time.sleep(0.2); t.close()
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.sendto(json.dumps({"type": "contacts", "contacts": [{"id": 5, "phase": "begin", "x": 1, "y": 2}]}).encode(), ("127.0.0.1", int(sys.argv[2])))
        """
        let r = try await Helper.runAsync(Helper.python, ["-c", script, "\(tport)", "\(uport)"])
        #expect(r.status == 0, "\(r.stderr)")
        let u = try await got.wait(for: 3)
        #expect(u.count == 3)
        let tcpUpdates = u.filter { $0.contactID == 1 }
        #expect(tcpUpdates.map(\.phase) == [.begin, .end])
        #expect(tcpUpdates[0].position == Vec2(10, 20) && tcpUpdates[0].major == 8)
        #expect(tcpUpdates[1].position == Vec2(11, 21) && tcpUpdates[1].orientation == 0.5 && tcpUpdates[1].minor == 7)
        #expect(abs((tcpUpdates[1].time - tcpUpdates[0].time) - 0.1) < 0.05)
        #expect(u.first { $0.contactID == 5 }?.position == Vec2(1, 2))
        #expect(tcp.badInput.count("bytes outside a JSON document") >= 1)
    }

    /// A Python sender (`t`: its socket, connected to a JSON TCP source; `body` its code):
    /// the updates once `count` came, and the source (closed after).
    static func fromPythonOverTCP(_ body: String, count: Int) async throws -> (updates: [ContactUpdate], source: JSONInputSource) {
        let tcp = JSONInputSource(transport: .tcp, host: "127.0.0.1", port: 0, surfaceSize: surface)
        let got = Collected()
        let port = try await tcp.bind(sink: got.sink)
        defer { Task { await tcp.close() } }
        let script = "import socket, sys, time, json\nt = socket.create_connection((\"127.0.0.1\", int(sys.argv[1])))\n" + body
        let r = try await Helper.runAsync(Helper.python, ["-c", script, "\(port)"])
        #expect(r.status == 0, "\(r.stderr)")
        return (try await got.wait(for: count), tcp)
    }

    /// A feed whose clock steps back 62 s (NTP on the sender) in the middle of a touch: its
    /// samples after the step are placed when they arrive, not 62 s before, and none is
    /// dropped as going backwards.
    @Test func aJSONFeedWhoseClockStepsBackKeepsItsTouchesOnTime() async throws {
        let (u, tcp) = try await Self.fromPythonOverTCP("""
        for i in range(20):
            step = 62 if i >= 10 else 0
            state = "beginning" if i == 0 else ("ending" if i == 19 else "moving")
            t.sendall((json.dumps({"Touches": [{"traceID": 3, "state": state, "position": [10 + i, 20],
                                                "timestamp": time.time() - step}]}) + "\\n").encode())
            time.sleep(0.02)
        time.sleep(0.1); t.close()
        """, count: 20)
        #expect(u.map(\.position.x) == (0..<20).map { Double(10 + $0) }, "every sample kept")
        let late = u.filter { $0.arrival - $0.time > 0.5 || $0.time > $0.arrival + 1e-9 }
        #expect(late.isEmpty, "placed off their arrival: \(late.map { $0.arrival - $0.time })")
        #expect(tcp.badInput.count("contact time went backwards") == 0)
    }

    @Test func aJSONConnectionThatClosesWithContactsDownEndsThem() async throws {
        // A forwarder that dies with fingers down: its contacts must end, or they stay on the
        // surface (and in every frame) for as long as serve runs (issue 36).
        let (u, _) = try await Self.fromPythonOverTCP("""
        t.sendall(json.dumps({"Touches": [{"traceID": 7, "state": "beginning", "position": [10, 20]},
                                          {"traceID": 8, "state": "beginning", "position": [30, 40]}]}).encode())
        time.sleep(0.1)
        t.sendall(json.dumps({"Touches": [{"traceID": 7, "state": "moving", "position": [12, 22]}]}).encode())
        time.sleep(0.1)
        t.close()
        """, count: 5)
        #expect(u.map(\.phase) == [.begin, .begin, .move, .end, .end])
        let ends = u.filter { $0.phase == .end }
        #expect(ends.map(\.contactID) == [7, 8])
        #expect(ends[0].position == Vec2(12, 22) && ends[1].position == Vec2(30, 40), "each ends where it was last")
        #expect(Set(u.map(\.origin)).count == 1, "the ends belong to the connection's own origin")
    }

    @Test func udpJSONSendersAreBoundedAndTheLongestSilentIsForgotten() async throws {
        // Every UDP sender (ip:port) has a decoder of its own; a flood of new source ports
        // must not grow that table without bound. The one forgotten ends its contacts.
        let udp = JSONInputSource(transport: .udp, host: "127.0.0.1", port: 0, surfaceSize: Self.surface)
        let got = Collected()
        let port = try await udp.bind(sink: got.sink)
        defer { Task { await udp.close() } }
        let n = JSONInputSource.maxSenders + 1
        let script = """
        import socket, sys, time, json
        socks = []
        for i in range(int(sys.argv[2])):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.sendto(json.dumps({"type": "contacts", "contacts": [{"id": 1, "phase": "begin", "x": i + 1, "y": 2}]}).encode(),
                     ("127.0.0.1", int(sys.argv[1])))
            socks.append(s)
            time.sleep(0.003)
        """
        let r = try await Helper.runAsync(Helper.python, ["-c", script, "\(port)", "\(n)"])
        #expect(r.status == 0, "\(r.stderr)")
        let u = try await got.wait(for: n + 1)
        #expect(u.filter { $0.phase == .begin }.count == n)
        let ended = u.filter { $0.phase == .end }
        #expect(ended.count == 1 && ended.first?.position == Vec2(1, 2), "the first sender, the longest silent, was forgotten: \(ended)")
        #expect(udp.badInput.count("too many JSON senders") == 1)
    }
}
