// The direct path for GATT notifications (`onPropertyBytes`): what it takes, and what it leaves to the subscribers.
import Foundation
import Synchronization
import Testing
@testable import PercSystem
import PercTestSupport

@Suite struct DBusPropertyBytesTests {
    static let path: DBusObjectPath = "/org/bluez/hci0/dev_AA/service0010/char0011"
    static let gatt = "org.bluez.GattCharacteristic1"
    static let name = "org.percbridge.FakeBlueZ"

    /// A receiver that watches `name` the way the BlueZ mirror does, a sender owning it, and
    /// an impostor on the same bus.
    final class Seen<T: Sendable>: Sendable {
        private let items = Mutex<[T]>([])
        func add(_ item: T) { items.withLock { $0.append(item) } }
        var all: [T] { items.withLock { $0 } }
    }

    struct Rig {
        let bus: PrivateBus
        let receiver: DBusConnection
        let sender: DBusConnection
        let impostor: DBusConnection
        let direct: Seen<[UInt8]>
        let generic: Seen<[String: DBusValue]>
        let subscription: DBusSignalSubscription
        let handler: UInt64

        static func start() async throws -> Rig {
            let bus = try PrivateBus()
            let sender = try DBusConnection(bus: .address(bus.address))
            _ = try await sender.requestName(DBusPropertyBytesTests.name)
            let receiver = try DBusConnection(bus: .address(bus.address))
            let impostor = try DBusConnection(bus: .address(bus.address))
            let generic = Seen<[String: DBusValue]>()
            let subscription = try await receiver.subscribe(DBusMatchRule(sender: DBusPropertyBytesTests.name,
                                                                         interface: DBusConnection.propertiesInterface,
                                                                         member: "PropertiesChanged")) { signal in
                let changed = signal.arguments[1].stringVariantDictionary ?? [:]
                generic.add(changed)
            }
            let direct = Seen<[UInt8]>()
            let handler = receiver.onPropertyBytes(sender: DBusPropertyBytesTests.name, path: DBusPropertyBytesTests.path,
                                                   interface: DBusPropertyBytesTests.gatt, property: "Value") { bytes, at in
                #expect(at > 0)
                direct.add(bytes)
            }
            return Rig(bus: bus, receiver: receiver, sender: sender, impostor: impostor, direct: direct, generic: generic,
                       subscription: subscription, handler: handler)
        }

        func stop() {
            subscription.cancel()
            receiver.close(); sender.close(); impostor.close()
            bus.stop()
        }

        func send(_ changed: [String: DBusValue], invalidated: [String] = [], interface: String = DBusPropertyBytesTests.gatt,
                  path: DBusObjectPath = DBusPropertyBytesTests.path, from connection: DBusConnection? = nil) throws {
            try (connection ?? sender).emitSignal(path: path, interface: DBusConnection.propertiesInterface, member: "PropertiesChanged",
                                                  arguments: [.string(interface), .stringVariantDictionary(changed), .stringArray(invalidated)])
        }

        /// Waits until `direct` + `generic` hold `count` signals in all.
        func settle(_ count: Int) async throws {
            try await dbusEventually { direct.all.count + generic.all.count >= count }
        }
    }

    @Test func aValueOnlyChangeGoesStraightToTheHandlerAndNowhereElse() async throws {
        let rig = try await Rig.start()
        defer { rig.stop() }
        for i in 0..<50 { try rig.send(["Value": .bytes([UInt8(i), 0xAB, 0xCD])]) }
        try rig.send(["Value": .bytes([])])
        try await rig.settle(51)
        let direct = rig.direct.all
        #expect(direct.count == 51)
        #expect(direct.prefix(50) == ArraySlice((0..<50).map { [UInt8($0), 0xAB, 0xCD] }), "in order, byte for byte")
        #expect(direct.last == [])
        #expect(rig.generic.all.isEmpty)
    }

    /// Everything that is not exactly a value-only change of that property goes the usual
    /// way, decoded, to the subscribers; nothing is lost or taken for a notification.
    @Test func otherChangesOnThatPathReachTheSubscribers() async throws {
        let rig = try await Rig.start()
        defer { rig.stop() }
        try rig.send(["Value": .bytes([1]), "Notifying": .boolean(true)])        // two changes
        try rig.send(["Value": .string("not bytes")])                             // wrong type
        try rig.send(["Value": .bytes([2])], invalidated: ["Flags"])              // something invalidated
        try rig.send(["Notifying": .boolean(false)])                              // another property
        try rig.send(["Value": .bytes([3])], interface: "org.bluez.Device1")      // another interface
        try rig.send(["Value": .bytes([4])], path: "/org/bluez/hci0/dev_AA/service0010/char0014")  // another object
        try rig.send(["Value": .bytes([5])])                                      // the one for the handler
        try await rig.settle(7)
        #expect(rig.direct.all == [[5]])
        let generic = rig.generic.all
        #expect(generic.count == 6)
        #expect(generic.first?["Notifying"] == .boolean(true))
        #expect(generic.contains { $0["Value"] == .string("not bytes") })
    }

    @Test func anotherSenderCannotFeedTheHandler() async throws {
        let rig = try await Rig.start()
        defer { rig.stop() }
        try rig.send(["Value": .bytes([9, 9])], from: rig.impostor)
        try rig.send(["Value": .bytes([1])])
        try await rig.settle(1)
        _ = try await rig.receiver.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                        interface: "org.freedesktop.DBus", member: "GetId", arguments: [])
        #expect(rig.direct.all == [[1]])
        #expect(rig.generic.all.isEmpty, "the impostor's signal matches no rule either")
    }

    @Test func afterRemovalTheSubscribersGetTheValuesAgain() async throws {
        let rig = try await Rig.start()
        defer { rig.stop() }
        try rig.send(["Value": .bytes([1])])
        try await rig.settle(1)
        rig.receiver.removePropertyBytesHandler(rig.handler)
        rig.receiver.removePropertyBytesHandler(rig.handler)  // twice is harmless
        try rig.send(["Value": .bytes([2])])
        try await rig.settle(2)
        #expect(rig.direct.all == [[1]])
        #expect(rig.generic.all.first?["Value"]?.bytes == [2])
    }
}
