// PercLink against what real bluetoothd 5.66 answers (emulated): auto-connect of paired PERCs,
// "Operation already in progress", services resolving late after a restart.
import Foundation
import Testing
import MTKTangibles
@testable import PercBlueZ
import PercSystem
import PercTestSupport

@Suite(.serialized) struct ReconnectTests {
    /// The emulator with the perc-v1 PERC paired (in BlueZ's auto-connect list) and a link to it up.
    static func pairedLinkUp() async throws -> (BlueZTestbed, PercLink, Task<Void, Never>, EventLog) {
        let bed = try await BlueZTestbed()
        try await bed.control.setPaired(BlueZTestbed.v1, true)
        let log = EventLog()
        let (link, task) = bed.startLink(BlueZTestbed.v1, events: log)
        let up = await eventually { link.linkUps == 1 }
        #expect(up, "the link came up: \(log.statuses)")
        return (bed, link, task, log)
    }

    @Test func connectAnswersAreSortedByWhatALinkDoesNext() {
        #expect(ConnectAnswer(DBusError(name: BlueZ.ErrorName.failed, message: "Operation already in progress"))
                == .pending("org.bluez.Error.Failed: Operation already in progress"))
        #expect(ConnectAnswer(DBusError(name: BlueZ.ErrorName.inProgress, message: "In Progress")) == .pending(BlueZ.ErrorName.inProgress))
        #expect(ConnectAnswer(DBusError(name: BlueZ.ErrorName.alreadyConnected, message: "")) == .alreadyConnected)
        #expect(ConnectAnswer(DBusError(name: BlueZ.ErrorName.notReady, message: "Resource Not Ready")) == .notReady)
        #expect(ConnectAnswer(DBusError(name: "org.freedesktop.DBus.Error.UnknownObject", message: "")) == .gone)
        #expect(ConnectAnswer(DBusError(name: BlueZ.ErrorName.failed, message: "le-connection-abort-by-local"))
                == .failed("org.bluez.Error.Failed: le-connection-abort-by-local"))
    }

    /// A paired PERC that goes away: BlueZ answers Connect with "Operation already in
    /// progress" (its own auto-connect); the link waits for Connected instead of retrying, and
    /// comes back by BlueZ's connect when the PERC is in range again.
    @Test func unreachablePairedPercWaitsForBlueZsOwnConnect() async throws {
        let (bed, link, task, log) = try await Self.pairedLinkUp()
        defer { task.cancel() }
        try await bed.control.setInRange(BlueZTestbed.v1, false)
        #expect(await eventually { log.statuses.contains { if case .awaitingConnection = $0 { true } else { false } } })
        let calls = try await bed.control.stats(BlueZTestbed.v1)["connect_calls"]?.int ?? 0
        try await Task.sleep(for: .seconds(1.5))
        // No retry loop while BlueZ is connecting it (the test link backs off from 0.1 s).
        #expect(try await bed.control.stats(BlueZTestbed.v1)["connect_calls"]?.int == calls)
        try await bed.control.setInRange(BlueZTestbed.v1, true)
        #expect(await eventually { link.linkUps == 2 })
        #expect(try await bed.control.stats(BlueZTestbed.v1)["connect_calls"]?.int == calls)
    }

    /// bluetoothd restarts: paired PERCs are connected by the new bluetoothd itself and their
    /// services resolve a moment later; the link follows those events.
    @Test func pairedPercStreamsAgainAfterABluetoothdRestart() async throws {
        let (bed, link, task, log) = try await Self.pairedLinkUp()
        defer { task.cancel() }
        for round in 2...4 {
            try await bed.control.vanish(seconds: 0)
            #expect(await eventually { log.count(.link, value: 0) == round - 1 })
            let back = ContinuousClock.now
            try await bed.control.returnBluetoothd()
            #expect(await eventually(5) { link.linkUps == round })
            print("bluetoothd restart round \(round - 1): streaming again \(ContinuousClock.now - back) after it returned")
        }
        try await bed.control.startStream(BlueZTestbed.v1, rate: 200, count: 20)
        #expect(await eventually { log.count(.light) >= 20 })
    }

    /// bluetoothd SIGKILLed (real 5.66 + kernel 6.12 on the harness): the link stays in the
    /// kernel; the new bluetoothd shows the PERC first disconnected, then Connected (its
    /// Connect answers ok and does nothing) with no services, and the kernel drops the link 2 s
    /// after the kill. The link then connects at once instead of backing off first (the
    /// harness's 3 s limit: 2 s of it are the kernel's).
    @Test func aLinkTheKernelKeptWhenBluetoothdWasKilledIsReplacedAtOnce() async throws {
        let (bed, link, task, log) = try await Self.pairedLinkUp()
        defer { task.cancel() }
        let killed = ContinuousClock.now
        try await bed.control.killBluetoothd(seconds: 0.2)
        #expect(await eventually { log.count(.link, value: 0) == 1 })
        #expect(await eventually(6) { link.linkUps == 2 }, "\(log.statuses)")
        let back = ContinuousClock.now - killed
        print("bluetoothd killed: streaming again \(back) later (the kernel keeps the old link 2 s)")
        let atOnce = log.statuses.contains { if case .retrying(let why, 0) = $0 { why.contains("as a link from before a bluetoothd restart does") } else { false } }
        #expect(atOnce, "\(log.statuses)")
        #expect(back < .seconds(2.8), "the kernel's 2 s, then one connect")
        try await bed.control.startStream(BlueZTestbed.v1, rate: 200, count: 10)
        #expect(await eventually { log.count(.light) >= 10 })
    }

    /// The same kill, with the new bluetoothd reading the kernel's links 150 ms after it
    /// published the device (real 5.66: 0.1 s on the harness, behind its start-up commands).
    /// A Connect in between leaves bluetoothd believing in a link it does not track, which
    /// costs a 2 s Disconnect; the link leaves a paired PERC alone for a moment after its
    /// adapter appeared, sees Connected=true and waits for the kernel's drop instead.
    @Test func aLinkWaitsForARestartedBluetoothdToReadTheKernelsLinks() async throws {
        let (bed, link, task, log) = try await Self.pairedLinkUp()
        defer { task.cancel() }
        let killed = ContinuousClock.now
        try await bed.control.killBluetoothd(seconds: 0.2, connectedAfter: 0.15)
        #expect(await eventually(8) { link.linkUps == 2 }, "\(log.statuses)")
        let back = ContinuousClock.now - killed
        print("bluetoothd killed, links read 0.15 s after it returned: streaming again \(back) later")
        #expect(try await bed.control.stats(BlueZTestbed.v1)["disconnect_calls"]?.int == 0, "no stale-state Disconnect: \(log.statuses)")
        #expect(back < .seconds(2.8), "the kernel's 2 s, then one connect")
    }

    /// Real bluetoothd 5.66 after a fast link drop (real-BlueZ harness: "No matching
    /// connection for device", then "Device … is already connected"): Connect answers ok but
    /// Connected never becomes true, for every retry. A Disconnect clears it.
    @Test func aLinkBlueZLostTrackOfIsClearedByDisconnect() async throws {
        let (bed, link, task, log) = try await Self.pairedLinkUp()
        defer { task.cancel() }
        try await bed.control.dropLinkStale(BlueZTestbed.v1)
        #expect(await eventually(10) { link.linkUps == 2 }, "\(log.statuses)")
        #expect(try await bed.control.stats(BlueZTestbed.v1)["disconnect_calls"]?.int == 1)
        // The clearing Disconnect is answered after bluetoothd's 2 s timer; the link connects
        // again at once after it, with no back-off on top.
        let cleared = log.statuses.contains { if case .retrying(let why, 0) = $0 { why.contains("stale link state is cleared") } else { false } }
        #expect(cleared, "\(log.statuses)")
        try await bed.control.startStream(BlueZTestbed.v1, rate: 200, count: 10)
        #expect(await eventually { log.count(.light) >= 10 })
    }

    /// Real bluetoothd 5.66 when the link's ATT channel comes up before it handles the link's
    /// connection event (real-BlueZ harness, bluetoothd SIGKILL runs: "Device … is already
    /// connected"): Connect answers ok and the link works, but no Connected=true is signalled;
    /// the property reads true. The link reads it back and goes on: no stale-state Disconnect
    /// and its 2 s.
    @Test func aConnectBlueZDidNotSignalIsReadBack() async throws {
        let (bed, link, task, log) = try await Self.pairedLinkUp()
        defer { task.cancel() }
        let dropped = ContinuousClock.now
        try await bed.control.dropLinkUnsignalled(BlueZTestbed.v1)
        #expect(await eventually(10) { link.linkUps == 2 }, "\(log.statuses)")
        let back = ContinuousClock.now - dropped
        print("a connect bluetoothd did not signal: streaming again \(back) after the drop")
        #expect(try await bed.control.stats(BlueZTestbed.v1)["disconnect_calls"]?.int == 0, "no stale-state Disconnect: \(log.statuses)")
        #expect(back < .seconds(1.5), "no 2 s Disconnect")
        #expect(bed.session.mirror.device(address: BlueZTestbed.v1)?.connected == true)
        try await bed.control.startStream(BlueZTestbed.v1, rate: 200, count: 10)
        #expect(await eventually { log.count(.light) >= 10 })
    }

    /// `btmgmt power off`: the link waits for the adapter (no retry loop) and does not switch
    /// it back on — someone chose to switch it off; when it is on again the PERC is back.
    @Test func anAdapterSwitchedOffStaysOffAndTheLinkWaitsForIt() async throws {
        let (bed, link, task, log) = try await Self.pairedLinkUp()
        defer { task.cancel() }
        try await bed.control.setPowered("hci0", false)
        #expect(await eventually { log.statuses.last == .waitingForAdapter }, "\(log.statuses)")
        let calls = try await bed.control.stats(BlueZTestbed.v1)["connect_calls"]?.int ?? 0
        try await Task.sleep(for: .seconds(1.5))
        #expect(bed.session.mirror.adapter(path: "/org/bluez/hci0")?.powered == false)
        #expect(try await bed.control.stats(BlueZTestbed.v1)["connect_calls"]?.int == calls)
        let on = ContinuousClock.now
        try await bed.control.setPowered("hci0", true)
        #expect(await eventually { link.linkUps == 2 })
        print("adapter switched on again: streaming \(ContinuousClock.now - on) later")
    }

    /// A PERC that stopped advertising, whose Connect BlueZ leaves unanswered (real 5.66:
    /// up to its LE connect timeout): reported unreachable once the call is slow, no retries
    /// while it waits, connected the moment the PERC is back.
    @Test func aConnectLeftUnansweredReportsThePercUnreachable() async throws {
        let bed = try await BlueZTestbed()
        try await bed.control.setConnectWaits(BlueZTestbed.v1, true)
        let log = EventLog()
        let (link, task) = bed.startLink(BlueZTestbed.v1, slowConnect: .milliseconds(500), events: log)
        defer { task.cancel() }
        #expect(await eventually { link.linkUps == 1 })
        try await bed.control.setInRange(BlueZTestbed.v1, false)
        let unreachable = await eventually { if case .awaitingConnection? = log.statuses.last { true } else { false } }
        #expect(unreachable, "\(log.statuses)")
        let calls = try await bed.control.stats(BlueZTestbed.v1)["connect_calls"]?.int ?? 0
        try await Task.sleep(for: .seconds(1))
        #expect(try await bed.control.stats(BlueZTestbed.v1)["connect_calls"]?.int == calls)
        try await bed.control.setInRange(BlueZTestbed.v1, true)
        #expect(await eventually { link.linkUps == 2 })
    }

    /// The read's echo (a StartNotify Value change) may come before the read's reply: it is
    /// decoded as a notification first, then taken back when the reply shows the same bytes,
    /// so the PERC's next notification (same sequence as the initial value here) is no
    /// duplicate and nothing counts as lost.
    @Test func aReadsEchoBeforeItsReplyIsTakenBack() {
        var d = PercV1Decoder(tangible: 1)
        let value: [UInt8] = [0x10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
        #expect(d.decode(value, arrival: 1).map(\.kind) == [.field, .light])
        #expect(d.decodeRead(value, arrival: 1.001).isEmpty, "the state was delivered already")
        #expect(d.stats.notifications == 0)
        // The PERC's first own notification reuses sequence 0 (as the emulator's does).
        #expect(d.decode([0x10, 0, 0, 9, 0, 0, 0, 1, 1, 0, 0], arrival: 2).map(\.kind) == [.field, .light])
        #expect(d.stats.notifications == 1 && d.stats.duplicates == 0 && d.stats.lost == 0)
        // A read of other bytes after a real notification is older news: nothing taken back.
        #expect(d.decodeRead(value, arrival: 3).isEmpty)
        #expect(d.stats.notifications == 1)
    }

    @Test func readValueFillsTheStateBeforeTheFirstNotification() {
        var d = PercV1Decoder(tangible: 1)
        let value: [UInt8] = [0x10, 7, 0, 1, 0, 0, 0, 1, 0, 0, 0]
        let read = d.decodeRead(value, arrival: 1)
        #expect(read.map(\.kind) == [.field, .light])
        // The value may be older than the read: no sequence, no device time (no latency).
        #expect(read.allSatisfy { $0.sequence == nil && $0.deviceTime == nil })
        // BlueZ's echo of the read (StartNotify users get it as a Value change): dropped,
        // not counted as a notification.
        #expect(d.decode(value, arrival: 1.01).isEmpty)
        #expect(d.stats.notifications == 0)
        // The PERC's next notification, same state: no duplicate, no gap, a heartbeat.
        #expect(d.decode([0x10, 8, 0, 2, 0, 0, 0, 1, 0, 0, 0], arrival: 2).map(\.kind) == [.heartbeat])
        #expect(d.stats.notifications == 1 && d.stats.duplicates == 0 && d.stats.lost == 0)
        // Once notifications flow, a read is older news and is ignored.
        #expect(d.decodeRead([0x10, 6, 0, 1, 0, 0, 0, 0, 0, 0, 0], arrival: 3).isEmpty)
        // A notification with the read's bytes after a new link-up is a notification again.
        d.linkRestarted()
        #expect(d.decode(value, arrival: 4).map(\.kind) == [.field, .light])
    }
}
