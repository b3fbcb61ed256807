// Puts the ControlService on a bus: the object, its interface, the well-known name, the signals.
import Foundation
import Logging
import MTKTangibles
import PercSystem
import PercRuntime

/// The exported control API (docs/control-api.md). `start` connects, exports
/// `/org/percbridge/PercBridge1`, takes the name `org.percbridge.PercBridge1` and wires the
/// state-change signal; `close` gives it all back.
public final class ControlServer: Sendable {
    let connection: DBusConnection
    let object: DBusExportedObject
    public let bus: DBusBus

    private init(connection: DBusConnection, object: DBusExportedObject, bus: DBusBus) {
        self.connection = connection; self.object = object; self.bus = bus
    }

    struct StartError: Error, CustomStringConvertible {
        var description: String
    }

    static func start(_ service: ControlService, bus: DBusBus, logger: Logger) async throws -> ControlServer {
        let connection: DBusConnection
        do { connection = try DBusConnection(bus: bus) } catch {
            throw StartError(description: "cannot connect to the \(bus) for the control API (\(error)); use --control-bus session, a bus address, or none")
        }
        let object: DBusExportedObject
        do {
            object = try connection.export(ControlAPI.path, interfaces: [interface(service)])
            let reply = try await connection.requestName(ControlAPI.busName)
            guard reply == .primaryOwner || reply == .alreadyOwner else {
                connection.close()
                throw StartError(description: "another PercBridge owns \(ControlAPI.busName) on the \(bus) already; stop it (systemctl stop percbridge) or give this one another --control-bus")
            }
        } catch let e as StartError { throw e } catch let e as DBusError where e.name == DBusError.Name.accessDenied.rawValue {
            connection.close()
            throw StartError(description: "the \(bus) does not let this user own \(ControlAPI.busName) (\(e.message)); install dbus/org.percbridge.PercBridge1.conf and run as user percbridge, or use --control-bus session")
        } catch {
            connection.close()
            throw StartError(description: "cannot export the control API on the \(bus): \(error)")
        }
        service.setBusDescription(bus.description)
        let server = ControlServer(connection: connection, object: object, bus: bus)
        service.onChange.set { t in server.signal(t) }
        service.onSurfaceCount.set { n in try? object.setProperty("TangiblesOnSurface", interface: ControlAPI.interface, to: .uint32(UInt32(n))) }
        logger.notice("control API on the \(bus) as \(ControlAPI.busName)", metadata: ["bus": "\(bus)"])
        return server
    }

    /// Starts where `choice` says, else on `fallback` (nil: not at all). A failure on the
    /// fallback only warns, so the service runs on without its control API; a failure on a
    /// bus the user chose ends the command with the reason.
    public static func start(_ service: ControlService, choice: ControlBusChoice?, fallback: DBusBus?, logger: Logger) async throws -> ControlServer? {
        let bus: DBusBus
        switch choice {
        case .none?: return nil
        case .bus(let b)?: bus = b
        case nil:
            guard let fallback else {
                logger.notice("the control API is off (no session bus, or [control] enabled = false); give --control-bus to offer it")
                return nil
            }
            bus = fallback
        }
        do { return try await start(service, bus: bus, logger: logger) } catch {
            if choice != nil { throw error }
            logger.warning("control API off: \(error)")
            return nil
        }
    }

    private func signal(_ t: TangibleSnapshot) {
        try? object.emit("TangibleChanged", interface: ControlAPI.interface,
                         arguments: [.stringVariantDictionary(ControlValues.change(t))])
    }

    public func close() {
        object.unexport()
        connection.close()
    }

    /// The interface with its handlers. Handlers turn `ControlError` into
    /// `org.percbridge.Error.*` replies; anything else becomes `…DBus.Error.Failed`.
    static func interface(_ s: ControlService) -> DBusInterface {
        @Sendable func handle(_ body: @escaping @Sendable () async throws -> [DBusValue]) async throws -> [DBusValue] {
            do { return try await body() } catch let e as ControlError { throw e.dbusError } catch let e as DBusError { throw e } catch {
                throw DBusError(.failed, "\(error)")
            }
        }
        @Sendable func str(_ call: DBusMethodCall, _ i: Int) -> String { call.arguments.indices.contains(i) ? call.arguments[i].string ?? "" : "" }
        return DBusInterface(
            name: ControlAPI.interface,
            methods: [
                DBusMethod("List", out: "aa{sv}", outNames: ["tangibles"]) { _ in
                    try await handle { [ControlValues.list(s.list())] }
                },
                DBusMethod("Status", out: "a{sv}", outNames: ["status"]) { _ in
                    try await handle { [.stringVariantDictionary(s.status())] }
                },
                DBusMethod("Pair", in: "ss", out: "a{sv}", inNames: ["address", "name"], outNames: ["module"]) { call in
                    try await handle { [.stringVariantDictionary(try await s.pair(address: str(call, 0), name: str(call, 1)))] }
                },
                DBusMethod("Forget", in: "s", out: "a{sv}", inNames: ["tangible"], outNames: ["forgotten"]) { call in
                    try await handle { [.stringVariantDictionary(try await s.forget(str(call, 0)))] }
                },
                DBusMethod("Define", in: "sss", out: "a{sv}", inNames: ["name", "kind", "address"], outNames: ["definition"]) { call in
                    try await handle { [.stringVariantDictionary(try await s.define(name: str(call, 0), kind: str(call, 1), address: str(call, 2)))] }
                },
                DBusMethod("Calibrate", in: "s", out: "a{sv}", inNames: ["tangible"], outNames: ["definition"]) { call in
                    try await handle { [.stringVariantDictionary(try await s.calibrate(str(call, 0)))] }
                },
            ],
            properties: [
                DBusProperty("Version", "s", .string(ControlAPI.version)),
                DBusProperty("Mode", "s", .string(s.mode)),
                DBusProperty("TangiblesOnSurface", "u", .uint32(0)),
            ],
            signals: [DBusSignalDescription("TangibleChanged", "a{sv}", argumentNames: ["tangible"])]
        )
    }
}
