// One connection to BlueZ with its mirror and discovery: what scan, pair, monitor and the bench open.
import Logging
import PercSystem

/// A started BlueZ client: a bus connection, the mirror (subscribed and snapshotted) and
/// the shared discovery. Close it to end the connection.
public struct BlueZSession: Sendable {
    public let connection: DBusConnection
    public let mirror: BlueZMirror
    public let discovery: BlueZDiscovery
    public let logger: Logger

    /// `adapter`: the adapter PERCs are used through when it is there (nil or "any": any);
    /// the default is the config's default, hci0.
    public static func open(bus: DBusBus, adapter: String? = "hci0", logger: Logger) async throws -> BlueZSession {
        let connection = try DBusConnection(bus: bus, logger: logger)
        let mirror = BlueZMirror(connection: connection, adapter: adapter == "any" ? nil : adapter, logger: logger)
        try await mirror.start()
        return BlueZSession(connection: connection, mirror: mirror,
                            discovery: BlueZDiscovery(mirror: mirror, logger: logger), logger: logger)
    }

    public func close() { connection.close() }
}
