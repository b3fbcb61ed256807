// `percbridge serve` follows the registry on SIGHUP: links of new PERCs start, those of removed ones stop.
import Foundation
import Glibc
import MTKTangibles
import Testing
@testable import PercBridge
import PercRuntime
import PercEmulator
import PercTestSupport

@Suite(.serialized) struct ServeReloadLinksTests {
    @Test func hangupStartsAndStopsLinks() async throws {
        let tmp = try TempDir("pb-serve-reload")
        let emulator = try BlueZEmulatorProcess(percs: [(BlueZTestbed.v1, "PERC-one", "perc-v1", -55),
                                                        (BlueZTestbed.mtk, "PERC-old", "mtk-serial", -70)])
        defer { emulator.stop() }
        let store = RegistryStore(path: tmp.path("tangibles.json"))
        var registry = TangibleRegistry()
        _ = try registry.add(.standardPerc(id: 0, name: "red", address: BlueZTestbed.v1))
        try store.save(registry)
        let serve = try ServeProcess(dir: tmp.url, .init(registry: tmp.path("tangibles.json"), bus: emulator.address))
        #expect(await serve.waitForLog("red (\(BlueZTestbed.v1)): link up"), "\(serve.log)")
        #expect(try await serve.metric("percbridge_links_connected") == 1)

        _ = try registry.forget("red")
        _ = try registry.add(.standardPerc(id: 0, name: "old", address: BlueZTestbed.mtk, profile: .mtkSerial))
        try store.save(registry)
        kill(serve.pid, SIGHUP)
        #expect(await serve.waitForLog("red: link stopped (the registry changed)"), "\(serve.log)")
        #expect(await serve.waitForLog("old (\(BlueZTestbed.mtk)): link up, mtk-serial"), "\(serve.log)")
        #expect(await eventually { (try? await serve.metric("percbridge_links_registered")) == 1 })
        #expect(try await serve.metric("percbridge_links_connected") == 1)
        // The new PERC's link event reaches the engine at a frame after the "link up" line: it is in range.
        var state: [String] = []
        #expect(await eventually {
            state = (try? await WSProbe.runAsync(["port": serve.httpPort, "path": "/api/state", "plain": true])) ?? []
            return state.contains { $0.contains("\"name\":\"old\"") && $0.contains("\"state\":\"inRange\"") }
        }, "\(state)")
        #expect(try await serve.terminate() == 0)
    }
}
