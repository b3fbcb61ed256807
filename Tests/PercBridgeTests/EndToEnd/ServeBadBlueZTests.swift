// `percbridge serve` when BlueZ is not there: touches keep working, the log says what to do, links come when bluetoothd does.
import Foundation
import Glibc
import MTKTangibles
import Testing
@testable import PercBridge
import PercBlueZ
import PercTestSupport

@Suite(.serialized) struct ServeBadBlueZTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The PUC put down by a recording; the PERC "red" in the registry.
    static func setUp(_ tmp: TempDir, bus: String) throws -> ServeProcess.Setup {
        var touches = EvemuScript(surface: Vec2(800, 500))
        touches.down(at: 0, [(0, 1, Vec2(300, 200)), (1, 2, Vec2(340, 200)), (2, 3, Vec2(300, 225))])
        return try .pucAndRed(in: tmp, touches: touches, bus: bus)
    }

    static func pucRecognised(_ port: Int) async -> Bool {
        let lines = (try? await WSProbe.runAsync(["port": port, "path": "/api/state", "plain": true])) ?? []
        return lines.contains { $0.contains("\"name\":\"puc\"") && $0.contains("\"state\":\"recognized\"") }
    }

    @Test func withoutBluetoothdTouchesWorkAndThePercConnectsWhenItAppears() async throws {
        let tmp = try TempDir("pb-serve-nobluez")
        let bus = try PrivateBus()
        let serve = try ServeProcess(dir: tmp.url, try Self.setUp(tmp, bus: bus.address))
        #expect(await serve.waitForLog("bluetoothd (org.bluez) is not on the bus at \(bus.address): 1 PERC link(s) wait for it"),
                "\(serve.log)")
        #expect(serve.log.contains("systemctl start bluetooth"))
        #expect(await eventually(10) { await Self.pucRecognised(serve.httpPort) }, "touches and PUCs work without BlueZ")
        #expect(try await serve.metric("percbridge_links_connected") == 0)
        // An app asking the PERC to light up is told why it cannot.
        let reply = try await WSProbe.runAsync(["port": serve.httpPort, "seconds": 0.5, "send": [
            ["type": "actuate", "tangible": 2, "led": "#ff0000"]]])
        #expect(reply.contains { $0.contains("\"type\":\"error\"") && $0.contains("unavailable") && $0.contains("red") }, "\(reply)")

        // bluetoothd (the emulator) appears on the bus: the link comes up by itself.
        let emulator = try TestProcess(WSProbe.python, [Self.repo.appendingPathComponent("scripts/bluez-emulator/perc_bluez_emulator.py").path,
                                                        "--bus", bus.address, "--perc", "\(BlueZTestbed.v1),PERC-one,perc-v1,-55"])
        defer { emulator.stop() }
        #expect(emulator.readLine(timeout: 30)?.hasPrefix("ready") == true)
        #expect(await serve.waitForLog("red (\(BlueZTestbed.v1)): link up", seconds: 20), "\(serve.log)")
        #expect(await eventually { (try? await serve.metric("percbridge_links_connected")) == 1 })
        #expect(try await serve.terminate() == 0)
    }

    @Test func anUnreachableBusIsNamedWithWhatToDoAndServingGoesOn() async throws {
        let tmp = try TempDir("pb-serve-nobus")
        let missing = "unix:path=\(tmp.path("no-bus.socket"))"
        let serve = try ServeProcess(dir: tmp.url, try Self.setUp(tmp, bus: missing))
        #expect(await serve.waitForLog("cannot reach the bus at \(missing) for BlueZ"), "\(serve.log)")
        #expect(serve.log.contains("touches and PUCs keep working"))
        #expect(serve.log.contains("[bluetooth] bus in the config"))
        #expect(await eventually(10) { await Self.pucRecognised(serve.httpPort) })
        let frames = try await serve.metric("percbridge_frames_total") ?? 0
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await serve.metric("percbridge_frames_total") ?? 0 > frames, "the frame clock runs")
        #expect(serve.isRunning)
        #expect(try await serve.terminate() == 0)
    }

    @Test func aBadBusInTheConfigIsNamedWithItsLine() async throws {
        let tmp = try TempDir("pb-config-bus")
        try "[bluetooth]\nenabled = true\nbus = \"hci0\"\nadapter = \"hci 0\"\n".write(toFile: tmp.path("c.toml"), atomically: true, encoding: .utf8)
        let r = try await offPool { try CLI.run(["config", "check", tmp.path("c.toml")]) }
        #expect(r.status == 78)
        #expect(r.stderr.contains("c.toml:3: bluetooth.bus: \"hci0\" is neither a bus name nor an address"), "\(r.stderr)")
        #expect(r.stderr.contains("c.toml:4: bluetooth.adapter: \"hci 0\" is not an adapter name"), "\(r.stderr)")
    }
}
