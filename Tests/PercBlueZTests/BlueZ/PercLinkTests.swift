// PercLink against the BlueZ emulator on a private bus: both notify paths, profiles, bad input, recovery.
import Foundation
import Testing
import MTKTangibles
@testable import PercBlueZ
import PercTestSupport

@Suite(.serialized) struct PercLinkTests {
    @Test func streamsThroughAcquireNotify() async throws {
        let bed = try await BlueZTestbed()
        let log = EventLog()
        let (link, task) = bed.startLink(BlueZTestbed.v1, events: log)
        defer { task.cancel() }
        #expect(await eventually { link.linkUps == 1 })
        // The link-up read comes right after subscribing (the state before any notification).
        #expect(await eventually { log.count(.light) == 1 })
        try await bed.control.startStream(BlueZTestbed.v1, rate: 200, count: 20)
        #expect(await eventually { link.stats.notifications == 20 })
        #expect(link.notifyPath == .acquireNotify)
        #expect(try await bed.control.stats(BlueZTestbed.v1)["acquired"]?.bool == true)
        #expect(log.count(.link, value: 1) == 1)
        // The state read at link-up (the emulated PERC's initial value: field 0, light 0),
        // then the 20 notified lights, each with its sequence number and device time.
        let lights = log.events.filter { $0.kind == .light }
        #expect(lights.count == 21)
        #expect(lights.first.map { $0.sequence == nil && $0.deviceTime == nil && $0.value == 0 } == true)
        #expect(lights.dropFirst().allSatisfy { $0.deviceTime != nil && $0.sequence != nil })
        #expect(log.count(.field, value: 0) == 1)
        #expect(link.stats.lost == 0)
    }

    @Test func fallsBackToStartNotifyWhenAcquireIsRefused() async throws {
        let bed = try await BlueZTestbed()
        try await bed.control.setAcquireNotify(BlueZTestbed.v1, false)
        let log = EventLog()
        let (link, task) = bed.startLink(BlueZTestbed.v1, events: log)
        defer { task.cancel() }
        #expect(await eventually { link.linkUps == 1 })
        #expect(link.notifyPath == .startNotify)
        // The link-up read's light, then 10 notified. BlueZ announces the read as a Value
        // change, which StartNotify delivers like a notification: it is not counted twice.
        #expect(await eventually { log.count(.light) == 1 && log.count(.field) == 1 })
        try await bed.control.startStream(BlueZTestbed.v1, rate: 200, count: 10)
        #expect(await eventually { log.count(.light) == 11 }, "\(log.events.map { "\($0.kind) \($0.value) \($0.sequence.map(String.init) ?? "-")" }) \(link.stats)")
        try await Task.sleep(for: .milliseconds(100))
        #expect(log.count(.light) == 11 && log.count(.field) == 2)  // read: field 0; stream: field 1
        #expect(link.stats.notifications == 10 && link.stats.duplicates == 0 && link.stats.lost == 0)
        #expect(try await bed.control.stats(BlueZTestbed.v1)["start_sessions"]?.int == 1)
    }

    @Test func mtkFramesSplitAndJoinedAreReassembled() async throws {
        let bed = try await BlueZTestbed()
        let log = EventLog()
        let (link, task) = bed.startLink(BlueZTestbed.mtk, events: log)
        defer { task.cancel() }
        #expect(await eventually { link.linkUps == 1 })
        // The host subscribes to the field and light groups.
        #expect(await eventually { (try? await bed.control.writes(BlueZTestbed.mtk).count) == 2 })
        let writes = try await bed.control.writes(BlueZTestbed.mtk).map { String(decoding: $0, as: UTF8.self) }
        #expect(writes == ["[2:0:s]", "[3:0:s]"])
        #expect(try await bed.control.sendMtk(BlueZTestbed.mtk, "[2:0:1][3:0:0]", chunk: 3) == 5)
        #expect(try await bed.control.sendMtk(BlueZTestbed.mtk, "[3:0:1][2:0:0]", chunk: 0) == 1)
        #expect(await eventually { log.events.filter { $0.kind != .link }.count == 4 })
        let kinds = log.events.filter { $0.kind != .link }.map { "\($0.kind.rawValue)=\($0.value)" }
        #expect(kinds == ["field=1", "light=0", "light=1", "field=0"])
        #expect(link.stats.garbage == 0)
    }

    @Test func nordicUartSpeaksTheSameFrames() async throws {
        let bed = try await BlueZTestbed()
        let log = EventLog()
        let (link, task) = bed.startLink(BlueZTestbed.nus, events: log)
        defer { task.cancel() }
        #expect(await eventually { link.linkUps == 1 })
        try await bed.control.sendMtk(BlueZTestbed.nus, "xx[2:0:1]", chunk: 0)
        #expect(await eventually { log.count(.field, value: 1) == 1 })
        #expect(link.stats.garbage == 2)
    }

    @Test func malformedValuesAreCountedNotFatal() async throws {
        let bed = try await BlueZTestbed()
        let log = EventLog()
        let (link, task) = bed.startLink(BlueZTestbed.v1, events: log)
        defer { task.cancel() }
        #expect(await eventually { link.linkUps == 1 })
        try await bed.control.sendRaw(BlueZTestbed.v1, [0x10, 1, 2])
        try await bed.control.sendRaw(BlueZTestbed.v1, [0x20, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0])
        try await bed.control.sendV1(BlueZTestbed.v1, field: 1, light: 1)
        #expect(await eventually { link.stats.notifications == 3 })
        #expect(link.stats.rejected == 2)
        #expect(await eventually { log.count(.field, value: 1) == 1 })
    }

    @Test func sequenceGapsAreCountedAsLost() async throws {
        let bed = try await BlueZTestbed()
        let log = EventLog()
        let (link, task) = bed.startLink(BlueZTestbed.v1, events: log)
        defer { task.cancel() }
        #expect(await eventually { link.linkUps == 1 })
        try await bed.control.sendV1(BlueZTestbed.v1, field: 1, light: 0)
        try await bed.control.dropSequence(BlueZTestbed.v1, 5)
        try await bed.control.sendV1(BlueZTestbed.v1, field: 1, light: 1)
        #expect(await eventually { link.stats.notifications == 2 })
        #expect(link.stats.lost == 5)
    }

    @Test func reconnectsAfterTheLinkDrops() async throws {
        let bed = try await BlueZTestbed()
        let log = EventLog()
        let (link, task) = bed.startLink(BlueZTestbed.v1, events: log)
        defer { task.cancel() }
        #expect(await eventually { link.linkUps == 1 })
        try await bed.control.setInRange(BlueZTestbed.v1, false)
        #expect(await eventually { log.count(.link, value: 0) == 1 })
        try await Task.sleep(for: .milliseconds(600))
        let attempts = try await bed.control.stats(BlueZTestbed.v1)["connects"]?.int
        try await bed.control.setInRange(BlueZTestbed.v1, true)
        #expect(await eventually(8) { link.linkUps == 2 })
        #expect(log.count(.link, value: 1) == 2)
        #expect(attempts == 1)  // failed attempts do not count as connects in the emulator
        // Each link-up read the state at once (field 0), without waiting for a notification.
        #expect(await eventually { log.count(.field, value: 0) == 2 })
        try await bed.control.sendV1(BlueZTestbed.v1, field: 0, light: 1)
        #expect(await eventually { log.count(.light, value: 1) == 1 })
        // Backed off while out of range, but did not spin.
        let retries = log.statuses.filter { if case .retrying = $0 { true } else { false } }.count
        #expect(retries >= 1 && retries < 20)
    }

    @Test func survivesBluetoothdVanishingAndReturning() async throws {
        let bed = try await BlueZTestbed()
        let log = EventLog()
        let (link, task) = bed.startLink(BlueZTestbed.v1, events: log)
        defer { task.cancel() }
        #expect(await eventually { link.linkUps == 1 })
        try await bed.control.vanish(seconds: 0)
        #expect(await eventually { log.count(.link, value: 0) == 1 })
        #expect(await eventually { log.statuses.contains(.waitingForBluetoothd) })
        #expect(!bed.session.mirror.bluetoothdPresent)
        #expect(bed.session.mirror.devices.isEmpty)
        try await bed.control.returnBluetoothd()
        #expect(await eventually(8) { link.linkUps == 2 })
        try await bed.control.sendV1(BlueZTestbed.v1, field: 1, light: 1)
        #expect(await eventually { log.count(.light, value: 1) >= 1 })
    }

    @Test func survivesTheAdapterBeingRemovedAndReplugged() async throws {
        let bed = try await BlueZTestbed()
        let log = EventLog()
        let (link, task) = bed.startLink(BlueZTestbed.v1, events: log)
        defer { task.cancel() }
        #expect(await eventually { link.linkUps == 1 })
        try await bed.control.unplugAdapter("hci0")
        #expect(await eventually { log.count(.link, value: 0) == 1 })
        // Only the adapter's removal was announced: the mirror dropped its subtree itself.
        #expect(bed.session.mirror.devices.isEmpty)
        #expect(bed.session.mirror.characteristics(of: "/org/bluez/hci0").isEmpty)
        try await bed.control.plugAdapter("hci0", powered: false)
        #expect(await eventually(8) { link.linkUps == 2 })
        #expect(await eventually { log.count(.field, value: 0) == 2 })  // read at each link-up
        try await bed.control.sendV1(BlueZTestbed.v1, field: 0, light: 1)
        #expect(await eventually { log.count(.light, value: 1) == 1 })
    }
}
