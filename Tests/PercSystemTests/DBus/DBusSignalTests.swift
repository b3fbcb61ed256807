// Signal subscriptions by match rule: streams, handlers, sender filtering, removal.
import Foundation
import Synchronization
import Testing
@testable import PercSystem
import PercTestSupport

@Suite struct DBusSignalTests {
    static let characteristic: DBusObjectPath = "/org/bluez/hci0/dev_AA/service0010/char0011"

    @Test func notificationsArriveInOrderOnAStream() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        let changes = try await peer.connection.propertiesChanges(sender: TestPeer.name, path: Self.characteristic,
                                                                  interface: "org.bluez.GattCharacteristic1")
        _ = try await peer.call("Notify", [.objectPath(Self.characteristic), .uint32(20), .uint32(0)])
        var sequence: [UInt32] = []
        for await change in changes {
            let bytes = try #require(change.changed["Value"]?.bytes)
            #expect(bytes.count == 12)
            sequence.append(bytes[8...].reversed().reduce(0) { $0 << 8 | UInt32($1) })
            #expect(change.receivedAtNanoseconds > 0)
            if sequence.count == 20 { break }
        }
        #expect(sequence == Array(0..<20))
    }

    @Test func aHandlerRunsOnTheLoopAndStopsAfterCancel() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        let count = Counter()
        let subscription = try await peer.connection.onPropertiesChange(path: Self.characteristic) { _ in count.add() }
        _ = try await peer.call("Notify", [.objectPath(Self.characteristic), .uint32(5), .uint32(0)])
        try await count.wait(for: 5)
        subscription.cancel()
        #expect(peer.connection.loop.subscriberCount == 0)
        _ = try await peer.call("Notify", [.objectPath(Self.characteristic), .uint32(5), .uint32(0)])
        _ = try await peer.call("Echo", [])  // a round trip: later signals would have arrived by now
        #expect(count.value == 5)
    }

    @Test func rulesSelectByPathInterfaceMemberAndArgument() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        let other: DBusObjectPath = "/org/bluez/hci0/dev_BB/service0010/char0011"
        let mine = Counter(), namespace = Counter(), wrongInterface = Counter()
        let a = try await peer.connection.onPropertiesChange(path: Self.characteristic) { _ in mine.add() }
        let b = try await peer.connection.onPropertiesChange(pathNamespace: "/org/bluez/hci0") { _ in namespace.add() }
        let c = try await peer.connection.onPropertiesChange(interface: "org.bluez.Device1") { _ in wrongInterface.add() }
        _ = try await peer.call("Notify", [.objectPath(Self.characteristic), .uint32(3), .uint32(0)])
        _ = try await peer.call("Notify", [.objectPath(other), .uint32(2), .uint32(0)])
        try await namespace.wait(for: 5)
        _ = try await peer.call("Echo", [])
        #expect(mine.value == 3)
        #expect(wrongInterface.value == 0)
        withExtendedLifetime((a, b, c)) {}
    }

    @Test func aWellKnownSenderOnlyMatchesItsOwner() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        let impostor = try DBusConnection(bus: .address(peer.bus.address))
        let seen = Counter()
        let subscription = try await peer.connection.onPropertiesChange(sender: TestPeer.name, path: Self.characteristic) { change in
            if change.interface == "org.bluez.GattCharacteristic1" { seen.add() }
        }
        // Same path and interface, but sent by someone who is not org.percbridge.TestPeer.
        try impostor.emitSignal(path: Self.characteristic, interface: DBusConnection.propertiesInterface, member: "PropertiesChanged",
                                arguments: [.string("org.bluez.GattCharacteristic1"), .stringVariantDictionary(["Value": .bytes([1])]), .stringArray([])])
        _ = try await peer.call("Notify", [.objectPath(Self.characteristic), .uint32(2), .uint32(0)])
        try await seen.wait(for: 2)
        _ = try await peer.call("Echo", [])
        #expect(seen.value == 2)
        subscription.cancel()
    }

    @Test func endingTheStreamRemovesTheSubscription() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        let task = Task {
            let stream = try await peer.connection.signals(matching: DBusMatchRule(interface: "org.percbridge.Nothing"))
            for await _ in stream {}
        }
        try await dbusEventually { peer.connection.loop.subscriberCount == 1 }
        task.cancel()
        try await dbusEventually { peer.connection.loop.subscriberCount == 0 }
    }

    @Test func signalsEmittedBySwiftReachAnotherConnection() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let sender = try DBusConnection(bus: .address(bus.address))
        let receiver = try DBusConnection(bus: .address(bus.address))
        let stream = try await receiver.signals(matching: DBusMatchRule(sender: sender.uniqueName, interface: "org.percbridge.Demo", member: "Ping"))
        try sender.emitSignal(path: "/demo", interface: "org.percbridge.Demo", member: "Ping", arguments: [.uint32(5), .stringArray(["x"])])
        var iterator = stream.makeAsyncIterator()
        let signal = await iterator.next()
        #expect(signal?.arguments == [.uint32(5), .stringArray(["x"])])
        #expect(signal?.sender == sender.uniqueName)
        #expect(signal?.path == "/demo")
    }
}

/// A thread-safe counter that tests can await.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }

    /// Waits until the count reaches `target` (fails after 30 s instead of hanging).
    func wait(for target: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while value < target {
            guard ContinuousClock.now < deadline else { throw PrivateBusError("counter stuck at \(value) < \(target)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// Waits until `condition` holds (fails after 30 s instead of hanging).
func dbusEventually(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while !condition() {
        guard ContinuousClock.now < deadline else { throw PrivateBusError("condition not met within 30 s") }
        try await Task.sleep(for: .milliseconds(5))
    }
}
