// `percbridge serve` end to end: TUIO touches in (python-osc), a PUC recognised out (WebSocket), SIGHUP, SIGTERM.
import Foundation
import MTKTangibles
import Testing
@testable import PercRuntime
import PercTestSupport

@Suite struct ServeTests {
    /// python-osc sends three fingers forming the PUC's triangle to serve's TUIO input.
    static let sender = #"""
import sys, time
from pythonosc.udp_client import SimpleUDPClient
from pythonosc.osc_bundle_builder import OscBundleBuilder, IMMEDIATELY
from pythonosc.osc_message_builder import OscMessageBuilder
port, seconds = int(sys.argv[1]), float(sys.argv[2])
pts = [(0.40, 0.40), (0.40 + 30/800, 0.40), (0.40, 0.40 + 30/500)]
c = SimpleUDPClient("127.0.0.1", port)
def msg(*args):
    m = OscMessageBuilder(address="/tuio/2Dcur")
    for a in args: m.add_arg(a)
    return m.build()
fseq, end = 1, time.time() + seconds
while time.time() < end:
    b = OscBundleBuilder(IMMEDIATELY)
    b.add_content(msg("source", "python-osc"))
    b.add_content(msg("alive", 1, 2, 3))
    for i, (x, y) in enumerate(pts):
        b.add_content(msg("set", i + 1, x, y, 0.0, 0.0, 0.0))
    b.add_content(msg("fseq", fseq))
    c.send(b.build())
    fseq += 1
    time.sleep(1/60)
"""#

    @Test func servesTouchesAsATangibleReloadsOnHangupStopsOnTerm() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let registryPath = dir.appendingPathComponent("tangibles.json").path
        var registry = TangibleRegistry()
        _ = try registry.add(TangibleDefinition(id: 0, name: "puc", kind: .puc, markers: [Vec2(0, 0), Vec2(30, 0), Vec2(0, 30)],
                                                footprint: .circle(radius: 30)))
        try RegistryStore(path: registryPath).save(registry)
        let tuioIn = TUIOPeers.freeUDPPort()
        let httpPort = TUIOPeers.freeUDPPort()  // a free number; TCP on it is free as well here
        let config = dir.appendingPathComponent("percbridge.toml")
        try """
        [surface]
        width_mm = 800
        height_mm = 500
        [[input]]
        kind = "tuio"
        listen = "127.0.0.1:\(tuioIn)"
        [tuio]
        enabled = false
        [http]
        bind = "127.0.0.1:\(httpPort)"
        [registry]
        path = "\(registryPath)"
        """.write(to: config, atomically: true, encoding: .utf8)

        let serve = Process()
        serve.executableURL = CLI.binary
        serve.arguments = ["serve", "--config", config.path, "--log-level", "notice"]
        let err = Pipe()
        serve.standardError = err
        serve.standardOutput = FileHandle.nullDevice
        try serve.run()
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        try await Task.sleep(for: .seconds(2))
        #expect(serve.isRunning)

        let script = dir.appendingPathComponent("send.py")
        try Self.sender.write(to: script, atomically: true, encoding: .utf8)
        let sender = Process()
        sender.executableURL = URL(fileURLWithPath: WSProbe.python)
        sender.arguments = [script.path, String(tuioIn), "3"]
        try sender.run()
        defer { if sender.isRunning { kill(sender.processIdentifier, SIGKILL) } }
        try await Task.sleep(for: .seconds(1.5))

        let lines = try await WSProbe.runAsync(["port": httpPort, "seconds": 0.5])
        let msgs = WSProbe.messages(lines)
        #expect(((msgs.first?["tangibles"] as? [[String: Any]])?.count) == 1)
        let frame = try #require(msgs.last { $0["type"] as? String == "frame" })
        let puc = try #require((frame["tangibles"] as? [[String: Any]])?.first)
        #expect(puc["state"] as? String == "recognized")
        let pose = try #require(puc["pose"] as? [String: Double])
        // Centroid of (320, 200), (350, 200), (320, 230).
        #expect(abs(pose["x"]! - 330) < 0.5 && abs(pose["y"]! - 210) < 0.5)

        _ = try registry.add(.standardPerc(id: 0, name: "perc"))
        try RegistryStore(path: registryPath).save(registry)
        kill(serve.processIdentifier, SIGHUP)
        try await Task.sleep(for: .milliseconds(700))
        let after = WSProbe.messages(try await WSProbe.runAsync(["port": httpPort, "seconds": 0.3]))
        #expect(((after.first?["tangibles"] as? [[String: Any]])?.count) == 2, "SIGHUP reloaded the registry")

        kill(serve.processIdentifier, SIGTERM)
        let exited = try await offPool { () -> Int32 in serve.waitUntilExit(); return serve.terminationStatus }
        #expect(exited == 0)
        let log = try await offPool { String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
        #expect(log.contains("reloaded the tangible registry"))
    }
}
