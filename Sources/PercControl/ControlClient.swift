// The CLI's side of the control API: connect, call, and turn bus errors into advice.
import Foundation
import PercSystem

/// Calls the running service's control API. Every failure is a `Failure` whose message says
/// what to do; "no service" has its own exit status (69, EX_UNAVAILABLE) so scripts can tell.
public struct ControlClient: Sendable {
    let connection: DBusConnection
    let bus: DBusBus

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public var exitCode: Int32 = 1
    }

    public static let noServiceExitCode: Int32 = 69

    public static func connect(_ bus: DBusBus) throws -> ControlClient {
        do { return ControlClient(connection: try DBusConnection(bus: bus), bus: bus) } catch {
            throw Failure(description: "cannot reach the \(bus) (\(error)), so no PercBridge service can be asked. \(startHint(bus))",
                          exitCode: noServiceExitCode)
        }
    }

    /// ` --bus X` for hints (empty for the system bus, the default).
    public static func busArgument(_ bus: DBusBus) -> String {
        switch bus {
        case .system: ""
        case .session: " --bus session"
        case .address(let a): " --bus \(a)"
        }
    }

    static func startHint(_ bus: DBusBus) -> String {
        switch bus {
        case .system: "Start it with `sudo systemctl start percbridge` (installed, docs/install.md) or run `percbridge serve`; for the simulator run `percbridge demo` and pass --bus session."
        case .session: "Start it with `percbridge demo` (offers the control API on the session bus) or `percbridge serve --control-bus session`."
        case .address(let a): "Start it with `percbridge demo --control-bus \(a)` or `percbridge serve --control-bus \(a)`."
        }
    }

    /// Calls `method`; returns the reply's first value.
    public func call(_ method: String, _ arguments: [DBusValue] = [], timeout: Duration = .seconds(10)) async throws -> DBusValue {
        do {
            let reply = try await connection.call(destination: ControlAPI.busName, path: ControlAPI.path, interface: ControlAPI.interface,
                                                  member: method, arguments: arguments, timeout: timeout)
            guard let first = reply.arguments.first else { throw Failure(description: "the service answered \(method) with nothing") }
            return first
        } catch let e as DBusError {
            throw Self.failure(e, method: method, bus: bus, timeout: timeout)
        }
    }

    static func failure(_ e: DBusError, method: String, bus: DBusBus, timeout: Duration) -> Failure {
        switch e.name {
        case DBusError.Name.serviceUnknown.rawValue, DBusError.Name.nameHasNoOwner.rawValue:
            return Failure(description: "no PercBridge service on the \(bus) (nobody owns \(ControlAPI.busName)). \(startHint(bus))",
                           exitCode: noServiceExitCode)
        case DBusError.Name.accessDenied.rawValue:
            return Failure(description: "the \(bus) does not let this user call \(method) (only root and members of group percbridge may change things): run it with sudo, or add yourself to the group (sudo usermod -aG percbridge $USER, then log in again)")
        case let n where e.isTimeout && !n.hasPrefix(ControlAPI.errorPrefix):
            return Failure(description: "the service did not answer \(method) within \(timeout.components.seconds) s; see its log (journalctl -u percbridge) and try again")
        case let n where n.hasPrefix(ControlAPI.errorPrefix):
            return Failure(description: e.message)
        default:
            return Failure(description: "\(method) failed: \(e.message) (\(e.name))")
        }
    }

    public func close() { connection.close() }
}
