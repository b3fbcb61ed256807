// Exported Swift objects called from another connection and from python (dbus-python proxy).
import Foundation
import Synchronization
import Testing
@testable import PercSystem
import PercTestSupport

/// Handlers run in Tasks: a full parallel test run can keep the task pool busy for a long while.
private let handlerTimeout: Duration = .seconds(120)

@Suite struct DBusExportTests {
    static let iface = "org.percbridge.Control1"
    static let path: DBusObjectPath = "/org/percbridge/Control"

    static func control() -> DBusInterface {
        DBusInterface(
            name: iface,
            methods: [
                DBusMethod("Add", in: "ii", out: "i", inNames: ["a", "b"], outNames: ["sum"]) { call in
                    guard case .int32(let a) = call.arguments[0], case .int32(let b) = call.arguments[1] else { return [] }
                    return [.int32(a &+ b)]
                },
                DBusMethod("Describe", in: "a{sv}", out: "s") { call in
                    let options = call.arguments[0].stringVariantDictionary ?? [:]
                    return [.string(options.keys.sorted().joined(separator: ","))]
                },
                DBusMethod("Forget", in: "s") { call in
                    throw DBusError(name: "org.percbridge.Error.UnknownTangible", message: "no tangible \(call.arguments[0].string ?? "")")
                },
                DBusMethod("Slow", out: "s") { _ in
                    try await Task.sleep(for: .milliseconds(50))
                    return [.string("done")]
                },
                DBusMethod("Broken", out: "s") { _ in [.uint32(1)] },
            ],
            properties: [
                DBusProperty("Version", "s", .string("0.1.0")),
                DBusProperty("Rate", "u", .uint32(120), access: .readwrite) { value in
                    guard let rate = value.int, (1...1000).contains(rate) else {
                        throw DBusError(.invalidArgs, "Rate must be 1...1000 Hz")
                    }
                },
            ],
            signals: [DBusSignalDescription("TangibleChanged", "us", argumentNames: ["id", "state"])]
        )
    }

    @Test func anExportedObjectAnswersAnotherConnection() async throws {
        let setup = try ServiceAndClient()
        defer { setup.bus.stop() }
        let (client, object, name) = (setup.client, setup.object, setup.service.uniqueName)

        let sum = try await client.call(destination: name, path: Self.path, interface: Self.iface, member: "Add",
                                        arguments: [.int32(40), .int32(2)], timeout: handlerTimeout)
        #expect(try sum.value(as: "i") == .int32(42))
        let described = try await client.call(destination: name, path: Self.path, interface: Self.iface, member: "Describe",
                                              arguments: [.stringVariantDictionary(["b": .uint32(1), "a": .string("x")])], timeout: handlerTimeout)
        #expect(described.arguments == [.string("a,b")])
        #expect(try await client.call(destination: name, path: Self.path, interface: nil, member: "Slow", timeout: handlerTimeout).arguments == [.string("done")])

        await #expect {
            _ = try await client.call(destination: name, path: Self.path, interface: Self.iface, member: "Forget", arguments: [.string("7")], timeout: handlerTimeout)
        } throws: { ($0 as? DBusError)?.name == "org.percbridge.Error.UnknownTangible" && ($0 as? DBusError)?.message == "no tangible 7" }
        await #expect {
            _ = try await client.call(destination: name, path: Self.path, interface: Self.iface, member: "Add", arguments: [.string("x")])
        } throws: { ($0 as? DBusError)?.name == DBusError.Name.invalidArgs.rawValue }
        await #expect {
            _ = try await client.call(destination: name, path: Self.path, interface: Self.iface, member: "Nope")
        } throws: { ($0 as? DBusError)?.name == DBusError.Name.unknownMethod.rawValue }
        await #expect {
            _ = try await client.call(destination: name, path: Self.path, interface: "org.percbridge.Other", member: "Add")
        } throws: { ($0 as? DBusError)?.name == DBusError.Name.unknownInterface.rawValue }
        await #expect {
            _ = try await client.call(destination: name, path: "/elsewhere", interface: Self.iface, member: "Add")
        } throws: { ($0 as? DBusError)?.name == DBusError.Name.unknownObject.rawValue }
        await #expect {
            _ = try await client.call(destination: name, path: Self.path, interface: Self.iface, member: "Broken", timeout: handlerTimeout)
        } throws: { ($0 as? DBusError)?.name == DBusError.Name.failed.rawValue }
        // Peer is answered by libdbus itself.
        _ = try await client.call(destination: name, path: Self.path, interface: "org.freedesktop.DBus.Peer", member: "Ping")

        object.unexport()
        await #expect {
            _ = try await client.call(destination: name, path: Self.path, interface: Self.iface, member: "Add", arguments: [.int32(1), .int32(2)])
        } throws: { ($0 as? DBusError)?.name == DBusError.Name.unknownObject.rawValue }
    }

    @Test func exportedPropertiesAndSignals() async throws {
        let setup = try ServiceAndClient()
        defer { setup.bus.stop() }
        let (client, object, name) = (setup.client, setup.object, setup.service.uniqueName)
        let changes = try await client.propertiesChanges(sender: name, path: Self.path, interface: Self.iface)
        let tangibles = try await client.signals(matching: DBusMatchRule(sender: name, interface: Self.iface, member: "TangibleChanged"))

        #expect(try await client.property("Version", interface: Self.iface, path: Self.path, destination: name) == .string("0.1.0"))
        #expect(try await client.allProperties(interface: Self.iface, path: Self.path, destination: name)
                == ["Version": .string("0.1.0"), "Rate": .uint32(120)])
        try await client.setProperty("Rate", to: .uint32(60), interface: Self.iface, path: Self.path, destination: name)
        #expect(object.property("Rate", interface: Self.iface) == .uint32(60))
        await #expect {
            try await client.setProperty("Rate", to: .uint32(5000), interface: Self.iface, path: Self.path, destination: name)
        } throws: { ($0 as? DBusError)?.message == "Rate must be 1...1000 Hz" }
        await #expect {
            try await client.setProperty("Rate", to: .string("fast"), interface: Self.iface, path: Self.path, destination: name)
        } throws: { ($0 as? DBusError)?.name == DBusError.Name.invalidArgs.rawValue }
        await #expect {
            try await client.setProperty("Version", to: .string("2"), interface: Self.iface, path: Self.path, destination: name)
        } throws: { ($0 as? DBusError)?.name == DBusError.Name.propertyReadOnly.rawValue }
        try object.setProperty("Version", interface: Self.iface, to: .string("0.2.0"))

        var changeIterator = changes.makeAsyncIterator()
        #expect(await changeIterator.next()?.changed == ["Rate": .uint32(60)])
        #expect(await changeIterator.next()?.changed == ["Version": .string("0.2.0")])

        try object.emit("TangibleChanged", interface: Self.iface, arguments: [.uint32(3), .string("tracked")])
        #expect(throws: DBusError.self) { try object.emit("TangibleChanged", interface: Self.iface, arguments: [.string("bad")]) }
        var signalIterator = tangibles.makeAsyncIterator()
        #expect(await signalIterator.next()?.arguments == [.uint32(3), .string("tracked")])
    }

    @Test func pythonCallsTheSwiftObjectThroughAnIntrospectedProxy() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        try peer.connection.export(Self.path, interfaces: [Self.control()])
        let me = DBusValue.string(peer.connection.uniqueName)
        func relay(_ mode: String, _ member: String, _ args: [DBusValue]) async throws -> [DBusValue] {
            let reply = try await peer.call("Relay", [.string(mode), .objectPath(Self.path), me, .string(Self.iface), .string(member),
                                                      .array(element: "v", args.map { .variant($0) })])
            return try reply.value(as: "av").array?.map(\.unwrapped) ?? []
        }
        // The proxy introspects us first and converts python ints by the declared signature "ii".
        #expect(try await relay("proxy", "Add", [.int64(2), .int64(3)]) == [.int32(5)])
        #expect(try await relay("proxy", "Describe", [.stringVariantDictionary(["z": .boolean(true)])]) == [.string("z")])
        await #expect {
            _ = try await relay("proxy", "Forget", [.string("9")])
        } throws: { ($0 as? DBusError)?.name == "org.percbridge.Error.UnknownTangible" }

        let xml = try await peer.connection.call(destination: peer.connection.uniqueName, path: Self.path,
                                                 interface: "org.freedesktop.DBus.Introspectable", member: "Introspect").value(as: "s").string ?? ""
        #expect(xml.contains(#"<method name="Add">"#))
        #expect(xml.contains(#"<arg name="sum" type="i" direction="out"/>"#))
        #expect(xml.contains(#"<property name="Rate" type="u" access="readwrite"/>"#))
        #expect(xml.contains(#"<signal name="TangibleChanged">"#))
        let parent = try await peer.connection.call(destination: peer.connection.uniqueName, path: "/org/percbridge",
                                                    interface: "org.freedesktop.DBus.Introspectable", member: "Introspect").value(as: "s").string ?? ""
        #expect(parent.contains(#"<node name="Control"/>"#))
    }

    @Test func exportingTwiceAtOnePathOrWithBadNamesFails() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let service = try DBusConnection(bus: .address(bus.address))
        try service.export(Self.path, interfaces: [Self.control()])
        #expect(throws: DBusError.self) { try service.export(Self.path, interfaces: [Self.control()]) }
        #expect(throws: DBusError.self) { try service.export("/x", interfaces: [DBusInterface(name: "no dots")]) }
        #expect(throws: DBusError.self) {
            try service.export("/y", interfaces: [DBusInterface(name: "a.b", properties: [DBusProperty("P", "u", .string("x"))])])
        }
    }
}

/// A private bus with a service connection exporting the control object and a client connection.
private struct ServiceAndClient {
    let bus: PrivateBus
    let service: DBusConnection
    let client: DBusConnection
    let object: DBusExportedObject

    init() throws {
        bus = try PrivateBus()
        service = try DBusConnection(bus: .address(bus.address))
        client = try DBusConnection(bus: .address(bus.address))
        object = try service.export(DBusExportTests.path, interfaces: [DBusExportTests.control()])
    }
}
