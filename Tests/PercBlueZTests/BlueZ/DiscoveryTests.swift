// BlueZDiscovery against bluetoothd's discovery sessions (emulated): one session per D-Bus
// client, answered before `Discovering` is announced; ours stopped when nobody wants it.
import Foundation
import Testing
@testable import PercBlueZ
import PercEmulator
import PercSystem
import PercTestSupport

@Suite(.serialized) struct DiscoveryTests {
    static let hci0: DBusObjectPath = "/org/bluez/hci0"

    /// `Adapter1.Discovering` as bluetoothd says it now (a Get, not the mirror's copy).
    static func discovering(_ connection: DBusConnection) async throws -> Bool {
        let reply = try await connection.call(destination: BlueZ.service, path: hci0, interface: BlueZ.properties,
                                              member: "Get", arguments: [.string(BlueZ.adapterInterface), .string("Discovering")],
                                              timeout: .seconds(5))
        if case .variant(.boolean(let on))? = reply.arguments.first { return on }
        return false
    }

    /// The race a bluetoothd restart makes: the PERC is found (its want dropped) right after
    /// StartDiscovery was answered, before bluetoothd announced `Discovering=true`. Deciding
    /// from that property left the scan running for good; our own session record stops it.
    @Test func discoveryDroppedBeforeItWasAnnouncedIsStopped() async throws {
        let bed = try await BlueZTestbed()
        defer { bed.stop() }
        await bed.session.discovery.want()
        #expect(bed.session.discovery.sessionAdapters == [Self.hci0])
        #expect(bed.session.mirror.adapter(path: Self.hci0)?.discovering == false, "announced only after the answer")
        await bed.session.discovery.unwant()
        #expect(bed.session.discovery.sessionAdapters.isEmpty)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await Self.discovering(bed.session.connection) == false)
        #expect(bed.session.mirror.adapter(path: Self.hci0)?.discovering == false)
    }

    /// Several users: discovery runs until the last one leaves; a want while it runs starts
    /// nothing twice (one session, no InProgress noise).
    @Test func discoveryRunsUntilTheLastUserLeaves() async throws {
        let bed = try await BlueZTestbed()
        defer { bed.stop() }
        await bed.session.discovery.want()
        await bed.session.discovery.want()
        #expect(await eventually(2) { (try? await Self.discovering(bed.session.connection)) == true })
        await bed.session.discovery.unwant()
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await Self.discovering(bed.session.connection) == true, "one user still wants it")
        await bed.session.discovery.unwant()
        #expect(await eventually(2) { (try? await Self.discovering(bed.session.connection)) == false })
    }

    /// Another client's scan (`bluetoothctl scan on`) is not ours to stop, and bluetoothd
    /// refuses a StopDiscovery from a client without a session.
    @Test func anotherClientsDiscoveryIsLeftRunning() async throws {
        let bed = try await BlueZTestbed()
        defer { bed.stop() }
        let other = try DBusConnection(bus: .address(bed.address))
        defer { other.close() }
        try await BlueZEmulatorControl(connection: other).startDiscoveryAsAnotherClient()
        await bed.session.discovery.want()
        #expect(bed.session.discovery.sessionAdapters == [Self.hci0], "our own session joins theirs")
        await bed.session.discovery.unwant()
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await Self.discovering(bed.session.connection) == true)
        var refused: DBusError?
        do {
            _ = try await bed.session.connection.call(destination: BlueZ.service, path: Self.hci0, interface: BlueZ.adapterInterface,
                                                      member: "StopDiscovery", timeout: .seconds(5))
        } catch let e as DBusError { refused = e }
        #expect(refused?.name == BlueZ.ErrorName.failed && refused?.message == "No discovery started", "\(String(describing: refused))")
        // The other client leaving the bus ends its session, and the scan with it.
        other.close()
        #expect(await eventually(3) { (try? await Self.discovering(bed.session.connection)) == false })
    }

    /// A link whose PERC BlueZ learns of only after discovery started: once it is found and
    /// the link is up, no scan is left running (a running scan kept real bluetoothd's
    /// pending reconnections from seeing the PERC advertise: docs/bluez.md).
    @Test func aLinkLeavesNoDiscoveryRunningOnceItsPercIsFound() async throws {
        let bed = try await BlueZTestbed(percs: [])
        defer { bed.stop() }
        let log = EventLog()
        let (link, task) = bed.startLink(BlueZTestbed.v1, events: log)
        defer { task.cancel() }
        #expect(await eventually(3) { (try? await Self.discovering(bed.session.connection)) == true }, "\(log.statuses)")
        try await bed.control.addPerc(BlueZTestbed.v1, name: "PERC-one", profile: "perc-v1")
        #expect(await eventually(5) { link.linkUps == 1 }, "\(log.statuses)")
        #expect(await eventually(2) { (try? await Self.discovering(bed.session.connection)) == false })
        #expect(bed.session.discovery.sessionAdapters.isEmpty)
    }
}
