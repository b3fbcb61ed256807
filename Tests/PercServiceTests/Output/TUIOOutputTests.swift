// TUIO output: the encoder's bundles, and `percbridge demo` received by peers nobody here wrote.
import Foundation
import MTKTangibles
import Testing
@testable import PercRuntime
import PercInput
import PercTestSupport

@Suite struct TUIOEncoderTests {
    func snapshot(fingers: Int) -> SurfaceSnapshot {
        var t = TangibleSnapshot(id: 3, name: "red", state: .tracked, pose: Pose(position: Vec2(200, 100), angle: 1), provenance: .confirmed)
        t.session = 1
        return SurfaceSnapshot(frame: 1, time: 0, tangibles: [t],
                               pointers: (0..<fingers).map { PointerSnapshot(id: Int64(100 + $0), position: Vec2(Double($0), 50)) })
    }

    @Test func oneBundlePerProfileInTheOrderClientsExpect() throws {
        var e = TUIOEncoder(source: "test@host", surface: Vec2(400, 200))
        let (v11, v20) = e.encode(snapshot(fingers: 2), unixTime: 0)
        #expect(v11.count == 2 && v20.count == 1)
        let obj = try OSCPacket.decode(v11[0]).messages
        #expect(obj.map { $0.arguments.first } == [.string("source"), .string("alive"), .string("set"), .string("fseq")])
        #expect(obj[2].arguments == [.string("set"), .int32(1), .int32(3), .float32(0.5), .float32(0.5), .float32(1),
                                     .float32(0), .float32(0), .float32(0), .float32(0), .float32(0)])
        #expect(obj[3].arguments == [.string("fseq"), .int32(1)])
        let cur = try OSCPacket.decode(v11[1]).messages
        #expect(cur[1].arguments == [.string("alive"), .int32(2), .int32(3)], "finger session ids never collide with the tangible's")
        let v2 = try OSCPacket.decode(v20[0]).messages
        #expect(v2.map(\.address) == ["/tuio2/frm", "/tuio2/tok", "/tuio2/ptr", "/tuio2/ptr", "/tuio2/alv"])
    }

    @Test func largeFramesAreSplitEachRepeatingAliveAndFseq() throws {
        var e = TUIOEncoder(source: "s", surface: Vec2(400, 200), maxDatagramBytes: 512)
        let (v11, _) = e.encode(snapshot(fingers: 40), unixTime: 0)
        let cursorBundles = try v11.dropFirst().map { try OSCPacket.decode($0).messages }
        #expect(cursorBundles.count > 1)
        var sets = 0
        for b in cursorBundles {
            #expect(b.first?.arguments.first == .string("source"))
            #expect(b[1].arguments.count == 41, "each part repeats the whole alive list")
            #expect(b.last?.arguments == [.string("fseq"), .int32(1)])
            sets += b.filter { $0.arguments.first == .string("set") }.count
        }
        #expect(sets == 40)
        #expect(v11.allSatisfy { $0.count <= 512 })
    }

    @Test func fseqGrowsAndEndedSessionsLeaveAlive() throws {
        var e = TUIOEncoder(source: "s", surface: Vec2(400, 200))
        _ = e.encode(snapshot(fingers: 1), unixTime: 0)
        let (v11, _) = e.encode(snapshot(fingers: 0), unixTime: 0)
        let cur = try OSCPacket.decode(v11[1]).messages
        #expect(cur[1].arguments == [.string("alive")])
        #expect(cur.last?.arguments == [.string("fseq"), .int32(2)])
    }
}

@Suite struct DemoTUIOEndToEndTests {
    /// `percbridge demo` → oscdump (liblo), python-tuio and a python-osc bundle checker.
    @Test func demoStreamsTangiblesAndFingersToIndependentPeers() async throws {
        let dumpPort = TUIOPeers.freeUDPPort(), tuioPort = TUIOPeers.freeUDPPort(), rawPort = TUIOPeers.freeUDPPort()
        let dump = Process()
        dump.executableURL = URL(fileURLWithPath: "/usr/bin/oscdump")
        dump.arguments = ["-L", String(dumpPort)]
        let dumpOut = Pipe()
        dump.standardOutput = dumpOut
        dump.standardError = FileHandle.nullDevice
        try dump.run()
        // oscdump ignores SIGTERM (and SIGINT when the runner ignores it); its -L output is
        // line-buffered, so SIGKILL loses nothing.
        defer { if dump.isRunning { kill(dump.processIdentifier, SIGKILL) } }
        let (peers, peersOut) = try TUIOPeers.start(tuioPort: tuioPort, rawPort: rawPort, seconds: 60)
        defer { if peers.isRunning { kill(peers.processIdentifier, SIGKILL) } }
        try await Task.sleep(for: .milliseconds(800))

        let demo = try await offPool {
            try CLI.run(["demo", "--scenario", "demo", "--duration", "4.6", "--http", "127.0.0.1:0",
                         "--tuio", "127.0.0.1:\(dumpPort)", "--tuio", "127.0.0.1:\(tuioPort)", "--tuio", "127.0.0.1:\(rawPort)"])
        }
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stdout.contains("web viewer:  http://127.0.0.1:"))
        #expect(demo.stdout.contains("demo summary:"))
        try await Task.sleep(for: .milliseconds(300))
        TUIOPeers.sendStop(to: rawPort)
        kill(dump.processIdentifier, SIGKILL)
        let report = try await offPool { peersOut.fileHandleForReading.readDataToEndOfFile() }
        let dumped = try await offPool { String(decoding: dumpOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }

        let r = try TUIOPeers.report(report)
        #expect((r["violations"] as? [String])?.isEmpty == true, "\(r["violations"] ?? "")")
        // ~550 frames at 120 Hz on an idle machine; far fewer when the machine is loaded.
        #expect((r["bundles11"] as? Int ?? 0) > 100)
        #expect((r["bundles20"] as? Int ?? 0) > 50)
        #expect((r["fseq_first"] as? Int ?? 0) >= 1)
        #expect((r["fseq_last"] as? Int ?? 0) > 50)
        // The demo scenario (800 x 500 mm): PERC 1 at (200, 180) turned 20°, PUC 4 at (600, 350),
        // finger 1 moving from (400, 100) to (450, 300) from 3.0 s to 4.5 s.
        let objects = try #require(r["objects"] as? [[String: Any]])
        let perc = try #require(objects.first { $0["class"] as? Int == 1 })
        #expect(abs((perc["x"] as? Double ?? 0) - 200.0 / 800) < 0.005)
        #expect(abs((perc["y"] as? Double ?? 0) - 180.0 / 500) < 0.005)
        #expect(abs((perc["angle"] as? Double ?? 0) - 20 * Double.pi / 180) < 0.05)
        let puc = try #require(objects.first { $0["class"] as? Int == 4 })
        #expect(abs((puc["x"] as? Double ?? 0) - 600.0 / 800) < 0.005)
        let cursor = try #require((r["cursors"] as? [[String: Any]])?.first)
        #expect(abs((cursor["x"] as? Double ?? 0) - 450.0 / 800) < 0.02)
        #expect(abs((cursor["y"] as? Double ?? 0) - 300.0 / 500) < 0.03)

        // liblo's oscdump decoded the same stream: 2Dobj sets with class id 1, and TUIO 2.0 frames.
        let lines = dumped.split(separator: "\n")
        #expect(lines.contains { $0.contains("/tuio/2Dobj siiffffffff \"set\"") && $0.contains("\"set\" ") })
        #expect(lines.contains { $0.contains("/tuio/2Dcur sifffff \"set\"") })
        #expect(lines.contains { $0.contains("/tuio2/frm itis") })
        #expect(lines.contains { $0.contains("/tuio2/tok iiiff") })
    }
}
