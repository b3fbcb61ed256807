// ServiceLinks against the BlueZ emulator on a private bus: links per registered PERC, pair, forget, actuate.
import Foundation
import MTKTangibles
import Synchronization
import Testing
@testable import PercService
@testable import PercRuntime
import PercSystem
import PercBlueZ
import PercTestSupport

@Suite(.serialized) struct ServiceLinksTests {
    /// A registry file in a temp dir, ServiceLinks running on the emulator's bus, a frame
    /// clock whose sensor events are collected. Everything ends with the harness.
    final class Harness: Sendable {
        let bed: BlueZTestbed
        let dir: URL
        let store: RegistryStore
        let links: ServiceLinks
        let clock: FrameClock
        let metrics: ServiceMetrics
        let task: Task<Void, Never>
        private let events = Mutex<[SensorEvent]>([])

        init(registry: TangibleRegistry, bus: String? = nil) async throws {
            bed = try await BlueZTestbed()
            dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-links-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            store = RegistryStore(path: dir.appendingPathComponent("tangibles.json").path)
            try store.save(registry)
            var config = ServiceConfig.Bluetooth()
            config.bus = bus ?? bed.address
            config.maxBackoffS = 1
            let links = ServiceLinks(config: config, store: store, definitions: registry.tangibles, logger: bed.session.logger)
            let (clock, metrics) = (FrameClock(), ServiceMetrics())
            self.links = links; self.clock = clock; self.metrics = metrics
            task = Task { await links.run(clock: clock, metrics: metrics) }
        }

        /// Sensor events the frame clock has received so far.
        func sensorEvents() -> [SensorEvent] {
            let frame = clock.cut(at: MonotonicClock.now())
            return events.withLock { $0 += frame.sensorEvents; return $0 }
        }

        func connected(_ ids: [TangibleID]) -> Bool {
            let s = links.statuses()
            return ids.allSatisfy { s[$0]?.isConnected == true }
        }

        func metric(_ name: String) -> Double? {
            metrics.exposition().split(separator: "\n").first { $0.hasPrefix(name + " ") }
                .flatMap { Double($0.split(separator: " ").last ?? "") }
        }

        func stop() async {
            task.cancel()
            await task.value
            bed.stop()
            try? FileManager.default.removeItem(at: dir)
        }
    }

    static func twoPercs() throws -> TangibleRegistry {
        var r = TangibleRegistry()
        _ = try r.add(.standardPerc(id: 0, name: "red", address: BlueZTestbed.v1, profile: .percV1))
        _ = try r.add(.standardPerc(id: 0, name: "old", address: BlueZTestbed.mtk.lowercased(), profile: .mtkSerial))
        _ = try r.add(TangibleDefinition(id: 0, name: "puc", kind: .puc, markers: [Vec2(0, 0), Vec2(30, 0), Vec2(0, 30)],
                                         footprint: .circle(radius: 30)))
        return r
    }

    @Test func everyRegisteredPercStreamsIntoTheFrameClock() async throws {
        let h = try await Harness(registry: try Self.twoPercs())
        #expect(await eventually(10) { h.connected([1, 2]) })
        #expect(h.links.statuses().count == 2, "the PUC has no link")
        try await h.bed.control.sendV1(BlueZTestbed.v1, field: 1, light: 0)
        try await h.bed.control.sendMtk(BlueZTestbed.mtk, "[2:0:1]", chunk: 0)
        #expect(await eventually { h.sensorEvents().contains { $0.tangible == 1 && $0.kind == .field && $0.value == 1 } })
        #expect(await eventually { h.sensorEvents().contains { $0.tangible == 2 && $0.kind == .field && $0.value == 1 } })
        #expect(h.sensorEvents().filter { $0.kind == .link && $0.value == 1 }.map(\.tangible).sorted() == [1, 2])
        #expect(h.metric("percbridge_links_connected") == 2)
        #expect(h.metric("percbridge_links_registered") == 2)
        try await h.bed.control.dropSequence(BlueZTestbed.v1, 4)
        try await h.bed.control.sendV1(BlueZTestbed.v1, field: 1, light: 1)
        #expect(await eventually { h.metric("percbridge_notifications_lost_total") == 4 })
        await h.stop()
    }

    @Test func pairRegistersThePercAndStartsItsLink() async throws {
        let h = try await Harness(registry: TangibleRegistry())
        // Until the links have their BlueZ session, pair says "not started yet; try again".
        var paired: TangibleDefinition?
        #expect(try await eventually(10) {
            do { paired = try await h.links.pair(address: BlueZTestbed.v1.lowercased(), name: "blue"); return true }
            catch ServiceLinksError.notRunning { return false }
        })
        let d = try #require(paired)
        #expect(d.id == 1 && d.name == "blue" && d.address == BlueZTestbed.v1 && d.profile == .percV1 && d.kind == .perc)
        #expect(try h.store.load().tangibles.map(\.name) == ["blue"])
        let stats = try await h.bed.control.stats(BlueZTestbed.v1)
        #expect(stats["paired"]?.bool == true && stats["trusted"]?.bool == true)
        #expect(await eventually(10) { h.connected([1]) })
        // Pairing again keeps the one entry.
        let again = try await h.links.pair(address: BlueZTestbed.v1)
        #expect(again.id == 1)
        #expect(try h.store.load().tangibles.count == 1)
        await h.stop()
    }

    /// Two modules advertising the same name (every PERC on the real-BlueZ harness is "BlueZ
    /// 5.66"): the second pair without --name gets the address's last bytes instead of failing.
    @Test func aTakenAdvertisedNameGetsTheAddressSuffix() async throws {
        var r = TangibleRegistry()
        _ = try r.add(TangibleDefinition(id: 0, name: "PERC-one", kind: .puc, markers: [Vec2(0, 0), Vec2(30, 0), Vec2(0, 30)],
                                         footprint: .circle(radius: 30)))
        let h = try await Harness(registry: r)
        var paired: TangibleDefinition?
        #expect(try await eventually(10) {
            do { paired = try await h.links.pair(address: BlueZTestbed.v1); return true }
            catch ServiceLinksError.notRunning { return false }
        })
        #expect(paired?.name == "PERC-one 00:01", "\(String(describing: paired))")
        // A name the user gives is taken as given, and refused when taken.
        await #expect(throws: TangibleRegistry.LookupError.self) { try await h.links.pair(address: BlueZTestbed.mtk, name: "PERC-one") }
        await h.stop()
    }

    @Test func pairingANonPercFailsAndRegistersNothing() async throws {
        let h = try await Harness(registry: TangibleRegistry())
        try await Task.sleep(for: .milliseconds(300))
        await #expect(throws: PercPairingError.self) { try await h.links.pair(address: BlueZTestbed.phone) }
        #expect(try h.store.load().tangibles.isEmpty)
        await h.stop()
    }

    @Test func forgetStopsTheLinkRemovesTheEntryAndTheDevice() async throws {
        let h = try await Harness(registry: try Self.twoPercs())
        #expect(await eventually(10) { h.connected([1, 2]) })
        let removed = try await h.links.forget(id: 1)
        #expect(removed.name == "red")
        #expect(try h.store.load().tangibles.map(\.id) == [2, 3])
        #expect(h.links.statuses().keys.sorted() == [2])
        #expect(await eventually { h.bed.session.mirror.device(address: BlueZTestbed.v1) == nil }, "BlueZ removed the device")
        #expect(h.sensorEvents().contains { $0.tangible == 1 && $0.kind == .link && $0.value == 0 })
        await #expect(throws: ServiceLinksError.unknownTangible(1)) { try await h.links.forget(id: 1) }
        #expect(h.connected([2]))
        await h.stop()
    }

    @Test func actuationGoesToTheRightLinkInItsProfile() async throws {
        let h = try await Harness(registry: try Self.twoPercs())
        #expect(await eventually(10) { h.connected([1, 2]) })
        #expect(h.links.actuate(1, .led(red: 255, green: 0, blue: 16)) == nil)
        #expect(h.links.actuate(2, .beep(on: true)) == nil)
        #expect(await eventually { (try? await h.bed.control.writes(BlueZTestbed.v1))?.contains([1, 255, 0, 16]) == true })
        #expect(await eventually {
            (try? await h.bed.control.writes(BlueZTestbed.mtk))?.contains(Array("[4:2:1]".utf8)) == true
        })
        #expect(h.links.actuate(9, .beep(on: true))?.code == .unknownTangible)
        let puc = h.links.actuate(3, .beep(on: true))
        #expect(puc?.code == .unavailable && puc?.message.contains("PUC") == true)
        await h.stop()
    }

    @Test func registryChangesStartAndStopLinks() async throws {
        var registry = TangibleRegistry()
        _ = try registry.add(.standardPerc(id: 0, name: "red", address: BlueZTestbed.v1))
        let h = try await Harness(registry: registry)
        #expect(await eventually(10) { h.connected([1]) })
        try h.links.updateRegistry { r in _ = try r.add(.standardPerc(id: 0, name: "nus", address: BlueZTestbed.nus, profile: .nordicUART)) }
        #expect(await eventually(10) { h.connected([1, 2]) })
        try h.links.updateRegistry { r in _ = try r.forget("red") }
        #expect(await eventually { h.links.statuses().keys.sorted() == [2] })
        #expect(await eventually { h.sensorEvents().contains { $0.tangible == 1 && $0.kind == .link && $0.value == 0 } })
        #expect(await eventually { h.metric("percbridge_links_connected") == 1 })
        await h.stop()
    }

    @Test func unreachableBusLeavesLinksWaitingAndSaysWhatToDo() async throws {
        let h = try await Harness(registry: try Self.twoPercs(), bus: "unix:path=/nonexistent/percbridge-test-bus")
        try await Task.sleep(for: .milliseconds(300))
        #expect(h.links.statuses() == [1: .waitingForBluetoothd, 2: .waitingForBluetoothd])
        do {
            _ = try await h.links.pair(address: BlueZTestbed.v1)
            Issue.record("pairing without a bus succeeded")
        } catch let e as ServiceLinksError {
            guard case .noBus = e else { Issue.record("unexpected \(e)"); return }
            #expect(e.description.contains("[bluetooth] bus"))
        }
        #expect(h.links.actuate(1, .beep(on: true))?.code == .unavailable)
        await h.stop()
    }
}
