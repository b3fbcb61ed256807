// The D-Bus connection against a real private dbus-daemon: connect, call, errors, timeouts.
import Foundation
import Testing
@testable import PercSystem
import PercTestSupport

@Suite struct DBusConnectionTests {
    @Test func connectsToAPrivateBusAndGetsAUniqueName() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try DBusConnection(bus: .address(bus.address))
        #expect(connection.uniqueName.hasPrefix(":"))
        #expect(connection.isConnected)
    }

    @Test func callsTheBusDaemon() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try DBusConnection(bus: .address(bus.address))
        let reply = try await connection.callBus("ListNames", [])
        let names = try reply.value(as: "as").stringArray ?? []
        #expect(names.contains("org.freedesktop.DBus"))
        #expect(names.contains(connection.uniqueName))
    }

    @Test func aBadAddressGivesAClearError() throws {
        #expect {
            _ = try DBusConnection(bus: .address("unix:path=/nonexistent/percbridge/socket"))
        } throws: { error in
            guard let error = error as? DBusError else { return false }
            return error.message.contains("cannot connect to the bus at unix:path=/nonexistent") && error.message.contains("Check the address")
        }
        #expect(throws: DBusError.self) { _ = try DBusConnection(bus: .address("nonsense:")) }
    }

    @Test func errorRepliesCarryNameAndMessage() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try DBusConnection(bus: .address(bus.address))
        await #expect {
            _ = try await connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                          interface: "org.freedesktop.DBus", member: "NoSuchMethod")
        } throws: { error in
            guard let error = error as? DBusError else { return false }
            return error.name == "org.freedesktop.DBus.Error.UnknownMethod" && !error.message.isEmpty
        }
    }

    @Test func closingFailsLaterCalls() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try DBusConnection(bus: .address(bus.address))
        connection.close()
        await #expect { _ = try await connection.callBus("ListNames", []) } throws: { ($0 as? DBusError)?.isDisconnected == true }
    }
}
