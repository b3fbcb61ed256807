// Which bus a connection goes to: the system bus, the session bus, or an address.

/// The bus to connect to.
public enum DBusBus: Sendable, Hashable, CustomStringConvertible {
    /// The system bus (`$DBUS_SYSTEM_BUS_ADDRESS`, else `unix:path=/run/dbus/system_bus_socket`): BlueZ lives here.
    case system
    /// The session bus of the logged-in user (`$DBUS_SESSION_BUS_ADDRESS`).
    case session
    /// A bus daemon at a D-Bus address such as `unix:path=/tmp/bus/socket`.
    case address(String)

    /// Parses the command-line spelling: `system`, `session`, or a D-Bus address (`unix:…`, `tcp:…`).
    public init(parsing text: String) throws {
        switch text {
        case "system": self = .system
        case "session": self = .session
        default:
            guard text.contains(":") else {
                throw DBusError(.badAddress, "'\(text)' is not a bus: use system, session, or a D-Bus address such as unix:path=/run/dbus/system_bus_socket")
            }
            self = .address(text)
        }
    }

    public var description: String {
        switch self {
        case .system: "system bus"
        case .session: "session bus"
        case .address(let a): "bus at \(a)"
        }
    }
}
