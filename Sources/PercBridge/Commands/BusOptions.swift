// The shared `--bus system|session|ADDRESS` option of every command that talks D-Bus.
import ArgumentParser
import Foundation
import PercSystem
import PercBlueZ

/// Add to a command with `@OptionGroup var busOptions: BusOptions`, then
/// `let connection = try busOptions.connect()`.
struct BusOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The D-Bus bus to use: system, session, or a bus address.",
            discussion: """
            BlueZ lives on the system bus, the default. Use `session` for your login session's bus, \
            or give a D-Bus address to reach a private bus, e.g. the BlueZ emulator's: \
            --bus unix:path=/tmp/percbridge-emulator/bus.socket
            """,
            valueName: "system|session|ADDRESS"
        )
    )
    var bus: DBusBus = .system

    /// The address the bus resolves to (environment variables first, as libdbus does).
    var address: String {
        let environment = ProcessInfo.processInfo.environment
        switch bus {
        case .system: return environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/run/dbus/system_bus_socket"
        case .session: return environment["DBUS_SESSION_BUS_ADDRESS"] ?? "(DBUS_SESSION_BUS_ADDRESS is not set)"
        case .address(let address): return address
        }
    }

    /// Connects; the error says which bus failed and what to try.
    func connect() throws -> DBusConnection {
        try DBusConnection(bus: bus)
    }
}

extension DBusBus: ExpressibleByArgument {
    public init?(argument: String) {
        guard let bus = try? DBusBus(parsing: argument) else { return nil }
        self = bus
    }

    public var defaultValueDescription: String {
        switch self {
        case .system: "system"
        case .session: "session"
        case .address(let address): address
        }
    }
}
