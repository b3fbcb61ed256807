// One connection to BlueZ with its mirror and discovery: what scan, pair, monitor and the bench open.
import Logging

/// A started BlueZ client: a bus connection, the mirror (subscribed and snapshotted) and
/// the shared discovery. Close it to end the connection.
struct BlueZSession: Sendable {
    let connection: DBusConnection
    let mirror: BlueZMirror
    let discovery: BlueZDiscovery
    let logger: Logger

    /// `adapter`: the adapter PERCs are used through when it is there (nil or "any": any);
    /// the default is the config's default, hci0.
    static func open(bus: DBusBus, adapter: String? = "hci0", logger: Logger) async throws -> BlueZSession {
        let connection = try DBusConnection(bus: bus, logger: logger)
        let mirror = BlueZMirror(connection: connection, adapter: adapter == "any" ? nil : adapter, logger: logger)
        try await mirror.start()
        return BlueZSession(connection: connection, mirror: mirror,
                            discovery: BlueZDiscovery(mirror: mirror, logger: logger), logger: logger)
    }

    func close() { connection.close() }
}
