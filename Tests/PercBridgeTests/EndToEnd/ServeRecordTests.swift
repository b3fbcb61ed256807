// `percbridge serve --record FILE` through the CLI: a live run with touches, PERC events and presented reports replays frame for frame.
import Foundation
import Glibc
import MTKTangibles
import Testing
@testable import PercBridge
import PercRuntime
import PercSystem
import PercEmulator
import PercTestSupport

@Suite(.serialized) struct ServeRecordTests {
    @Test func aRecordedServeRunReplaysFrameForFrame() async throws {
        let tmp = try TempDir("pb-serve-record")
        let emulator = try BlueZEmulatorProcess(percs: [(BlueZTestbed.v1, "PERC-one", "perc-v1", -55)])
        defer { emulator.stop() }
        var touches = EvemuScript(surface: Vec2(800, 500))
        touches.down(at: 0, [(0, 1, Vec2(50, 50))])
        touches.up(at: 0.05, slots: [0])
        touches.down(at: 0.8, [(0, 2, Vec2(400, 250)), (1, 3, Vec2(440, 250)), (2, 4, Vec2(400, 275))])
        let recording = tmp.path("run.jsonl")
        let serve = try ServeProcess(dir: tmp.url, try .pucAndRed(in: tmp, touches: touches, bus: emulator.address),
                                     arguments: ["--record", recording])
        #expect(await serve.waitForLog("red (\(BlueZTestbed.v1)): link up"), "\(serve.log)")
        let connection = try DBusConnection(bus: .address(emulator.address))
        defer { connection.close() }
        try await BlueZEmulatorControl(connection: connection).startStream(BlueZTestbed.v1, rate: 50, count: 30)
        let app = try await WSProbe.runAsync(["port": serve.httpPort, "seconds": 1.2, "quiet": true, "send": [
            ["type": "hello", "protocol": 1, "name": "record test", "draws_overlay": true],
            ["type": "presented", "overlay": 0], ["type": "presented", "overlay": 0],
        ]])
        #expect(app.contains { $0.hasPrefix("COUNT ") })
        // The recognised PUC leaves the registry mid-run: replay must switch definitions
        // between the same two frames the live engine did.
        let store = RegistryStore(path: tmp.path("tangibles.json"))
        var registry = try store.load()
        _ = try registry.forget("puc")
        try store.save(registry)
        kill(serve.pid, SIGHUP)
        #expect(await serve.waitForLog("reloaded the tangible registry"))
        try await Task.sleep(for: .milliseconds(300))
        let status = try await serve.terminate()
        #expect(status == 0, "\(serve.log)")
        #expect(serve.log.contains("recording every input to \(recording)"))

        let replay = try await offPool { try CLI.run(["replay", recording, "--json"]) }
        #expect(replay.status == 0, "\(replay.stdout)\(replay.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(replay.stdout.utf8)) as? [String: Any])
        let frames = report["frames"] as? Int ?? 0
        #expect(frames > 100, "1.5 s or more at 120 Hz")
        #expect(report["compared"] as? Int == frames, "every live frame's result digest was recorded and compared")
        #expect((report["mismatches"] as? [Any])?.isEmpty == true)
        #expect(report["contactUpdates"] as? Int ?? 0 >= 5, "the recording's tap and triangle")
        #expect(report["sensorEvents"] as? Int ?? 0 >= 31, "link up and the 30 streamed notifications")
        #expect(report["presented"] as? Int ?? 0 >= 2)
        #expect(report["tangiblesDefined"] as? Int == 1, "the PUC was forgotten")
        let lines = try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n")
        #expect(lines.filter { $0.contains("\"definitions\"") }.count == 2, "at start and after SIGHUP")
        let text = try await offPool { try CLI.run(["replay", recording]) }
        #expect(text.stdout.contains("frames, all identical to the live run"), "\(text.stdout)")
    }
}
