// PercBridge's org.bluez.Agent1 (NoInputNoOutput): answers BlueZ's questions while pairing PERCs.
import Logging
import Synchronization
import PercSystem

/// The pairing agent. PERCs have no keypad or display, so it registers as
/// NoInputNoOutput ("just works"): it confirms and authorizes, and refuses anything that
/// would need a PIN or passkey typed in (a PERC never asks for one; something else does).
public final class BlueZAgent: Sendable {
    static let path: DBusObjectPath = "/org/percbridge/agent"
    static let capability = "NoInputNoOutput"
    /// Agent1's methods and their signatures (in, out).
    static let methods: [(String, DBusSignature, DBusSignature)] = [
        ("Release", "", ""), ("RequestPinCode", "o", "s"), ("DisplayPinCode", "os", ""),
        ("RequestPasskey", "o", "u"), ("DisplayPasskey", "ouq", ""), ("RequestConfirmation", "ou", ""),
        ("RequestAuthorization", "o", ""), ("AuthorizeService", "os", ""), ("Cancel", "", ""),
    ]

    let connection: DBusConnection
    let logger: Logger
    private let exported = Mutex<DBusExportedObject?>(nil)

    public init(connection: DBusConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    deinit { exported.withLock { $0?.unexport() } }

    /// Exports the agent (once per connection) and registers it with BlueZ as the default
    /// agent. Call again after bluetoothd restarted: BlueZ forgets agents.
    func register() async throws {
        try exported.withLock { object in
            guard object == nil else { return }
            let logger = self.logger
            let methods = Self.methods.map { name, inSig, outSig in
                DBusMethod(name, in: inSig, out: outSig) { call in
                    logger.info("BlueZ agent: \(call.member) from \(call.sender)")
                    return try Self.answer(member: call.member, arguments: call.arguments).get()
                }
            }
            object = try connection.export(Self.path, interfaces: [DBusInterface(name: BlueZ.agent, methods: methods)])
        }
        let calls = BlueZCalls(connection: connection)
        do {
            try await calls.registerAgent(Self.path, capability: Self.capability)
        } catch let error as DBusError where error.name == BlueZ.ErrorName.alreadyExists {
            // Registered before on this connection and bluetoothd still knows it.
        }
        try? await calls.requestDefaultAgent(Self.path)
        logger.info("BlueZ: pairing agent registered at \(Self.path) (\(Self.capability))")
    }

    /// What the agent answers to each Agent1 method (pure: tested directly).
    static func answer(member: String, arguments: [DBusValue]) -> Result<[DBusValue], DBusError> {
        switch member {
        case "Release", "Cancel", "DisplayPinCode", "DisplayPasskey":
            return .success([])
        case "RequestConfirmation", "RequestAuthorization", "AuthorizeService":
            // Just works: a PERC cannot show or compare a passkey.
            return .success([])
        case "RequestPinCode", "RequestPasskey":
            return .failure(DBusError(name: BlueZ.ErrorName.rejected,
                                      message: "PercBridge pairs PERCs without PIN or passkey (NoInputNoOutput)"))
        default:
            return .failure(DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod",
                                      message: "org.bluez.Agent1 has no method \(member)"))
        }
    }
}
