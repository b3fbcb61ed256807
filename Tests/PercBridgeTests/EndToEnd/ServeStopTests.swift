// `percbridge serve` ends promptly on SIGTERM whatever it is waiting for: an unanswered
// Connect, a stalled app, bluetoothd gone (real-BlueZ harness: once "still running 5 s
// after SIGTERM" with a PERC link stuck after a controller fault).
import Foundation
import Glibc
import MTKTangibles
import Testing
import PercRuntime
import PercSystem
import PercEmulator
import PercTestSupport

@Suite(.serialized) struct ServeStopTests {
    /// SIGTERM → exit status, and how long it took.
    static func stop(_ serve: ServeProcess) async throws -> (Int32, Duration) {
        let t0 = ContinuousClock.now
        let status = try await serve.terminate(seconds: 15)
        return (status, ContinuousClock.now - t0)
    }

    @Test func sigtermEndsServeWhileAConnectIsUnansweredAndAnAppStalls() async throws {
        let tmp = try TempDir("pb-serve-stop")
        let emulator = try BlueZEmulatorProcess(percs: [(BlueZTestbed.v1, "PERC-one", "perc-v1", -55),
                                                        (BlueZTestbed.mtk, "PERC-old", "mtk-serial", -70)])
        defer { emulator.stop() }
        let connection = try DBusConnection(bus: .address(emulator.address))
        defer { connection.close() }
        let control = BlueZEmulatorControl(connection: connection)
        try await control.setConnectWaits(BlueZTestbed.v1, true)
        try await control.setInRange(BlueZTestbed.v1, false)
        var registry = TangibleRegistry()
        _ = try registry.add(.standardPerc(id: 0, name: "red", address: BlueZTestbed.v1))
        _ = try registry.add(.standardPerc(id: 1, name: "old", address: BlueZTestbed.mtk, profile: .mtkSerial))
        try RegistryStore(path: tmp.path("tangibles.json")).save(registry)
        let serve = try ServeProcess(dir: tmp.url, .init(registry: tmp.path("tangibles.json"), bus: emulator.address))
        #expect(await serve.waitForLog("old (\(BlueZTestbed.mtk)): link up"), "\(serve.log)")
        #expect(await serve.waitForLog("red (\(BlueZTestbed.v1)): connecting"), "\(serve.log)")
        // An app that connects and never reads (its socket fills), and one that reads.
        let (stalled, _) = try WSProbe.start(["port": serve.httpPort, "stall": 30, "seconds": 30])
        let (reading, _) = try WSProbe.start(["port": serve.httpPort, "seconds": 30])
        defer { WSProbe.end(stalled); WSProbe.end(reading) }
        #expect(await serve.waitForLog("app connected"), "\(serve.log)")
        try await Task.sleep(for: .milliseconds(500))
        let (status, took) = try await Self.stop(serve)
        print("serve SIGTERM with a Connect unanswered and a stalled app: exited \(status) after \(took)")
        #expect(status == 0, "\(serve.log.suffix(3000))")
        #expect(took < .seconds(2), "\(serve.log.suffix(3000))")
        // The stalled app never takes the close frame: its session is cancelled after the
        // graceful-shutdown limit, and the log says so.
        #expect(serve.log.contains("took longer than 1.0 seconds to stop (an app that stopped reading"), "\(serve.log.suffix(3000))")
    }

    @Test func sigtermEndsServeWhileBluetoothdIsGone() async throws {
        let tmp = try TempDir("pb-serve-stop-gone")
        let emulator = try BlueZEmulatorProcess(percs: [(BlueZTestbed.v1, "PERC-one", "perc-v1", -55)])
        defer { emulator.stop() }
        let connection = try DBusConnection(bus: .address(emulator.address))
        defer { connection.close() }
        var registry = TangibleRegistry()
        _ = try registry.add(.standardPerc(id: 0, name: "red", address: BlueZTestbed.v1))
        try RegistryStore(path: tmp.path("tangibles.json")).save(registry)
        let serve = try ServeProcess(dir: tmp.url, .init(registry: tmp.path("tangibles.json"), bus: emulator.address))
        #expect(await serve.waitForLog("red (\(BlueZTestbed.v1)): link up"), "\(serve.log)")
        try await BlueZEmulatorControl(connection: connection).vanish(seconds: 0)
        #expect(await serve.waitForLog("bluetoothd left the bus"), "\(serve.log)")
        let (status, took) = try await Self.stop(serve)
        print("serve SIGTERM with bluetoothd gone: exited \(status) after \(took)")
        #expect(status == 0, "\(serve.log.suffix(3000))")
        #expect(took < .seconds(2), "\(serve.log.suffix(3000))")
    }
}
