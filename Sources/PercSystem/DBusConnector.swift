// Opens a private libdbus connection to the system bus, the session bus or an address.
import CDBus

/// Opens and registers connections; errors say which bus failed and what to try.
enum DBusConnector {
    /// libdbus needs its locks before any connection is shared between threads.
    private static let threadsReady: Bool = dbus_threads_init_default() != 0

    static func connect(_ bus: DBusBus) throws -> OpaquePointer {
        guard threadsReady else { throw DBusError(.noMemory, "libdbus could not initialise its thread locks") }
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let connection: OpaquePointer?
        switch bus {
        case .system:
            connection = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error)
        case .session:
            connection = dbus_bus_get_private(DBUS_BUS_SESSION, &error)
        case .address(let address):
            connection = dbus_connection_open_private(address, &error)
            if let connection, dbus_bus_register(connection, &error) == 0 {
                dbus_connection_close(connection)
                dbus_connection_unref(connection)
                throw failure(bus, &error)
            }
        }
        guard let connection else { throw failure(bus, &error) }
        // A lost bus must surface as an error to us, never end the process.
        dbus_connection_set_exit_on_disconnect(connection, 0)
        return connection
    }

    private static func failure(_ bus: DBusBus, _ error: inout CDBus.DBusError) -> DBusError {
        let cause = DBusNames.swiftError(&error) ?? DBusError(.failed, "unknown reason")
        let hint = switch bus {
        case .system: "Is dbus-daemon running (systemctl status dbus)? Or pick another bus with --bus session|ADDRESS."
        case .session: "Is a session bus running (is DBUS_SESSION_BUS_ADDRESS set)? Or use --bus system|ADDRESS."
        case .address: "Check the address (e.g. unix:path=/run/dbus/system_bus_socket) and that a bus daemon listens there."
        }
        return DBusError(name: cause.name, message: "cannot connect to the \(bus): \(cause.message). \(hint)")
    }
}
