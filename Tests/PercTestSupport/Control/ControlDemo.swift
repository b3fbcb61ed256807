// Test harness: `percbridge demo` with its control API on a private bus, ended by pid.
import Foundation
import PercSystem
import PercControl

/// A private dbus-daemon and the real `percbridge demo` offering its control API there.
/// Both are killed by pid in `stop()` and `deinit`, also when a test fails.
public final class ControlDemo: @unchecked Sendable {
    // @unchecked: the processes are only touched by the test that owns this object.
    public let bus: PrivateBus
    public let demo: TestProcess
    public let registry: URL
    public let client: DBusConnection

    public init(scenario: String = "pairing", extra: [String] = []) async throws {
        bus = try PrivateBus()
        registry = bus.directory.appendingPathComponent("tangibles.json")
        demo = try TestProcess(CLI.binary.path, ["demo", "--scenario", scenario, "--control-bus", bus.address,
                                                 "--registry", registry.path, "--http", "127.0.0.1:0", "--tuio", "127.0.0.1:9",
                                                 "--log-level", "warning"] + extra)
        client = try DBusConnection(bus: .address(bus.address))
        // The name appears once the control API is exported (before the first frame).
        let deadline = MonotonicClock.now() + 60
        while try await client.nameOwner(of: ControlAPI.busName) == nil {
            guard MonotonicClock.now() < deadline else {
                stop()
                throw PrivateBusError("percbridge demo did not take \(ControlAPI.busName) within 60 s: \(demo.errorOutput())")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Runs the CLI against this demo's bus (off the cooperative pool).
    public func cli(_ args: [String]) async throws -> CLI.Result {
        let address = bus.address
        return try await offPool { try CLI.run(args + ["--bus", address]) }
    }

    public func call(_ method: String, _ args: [DBusValue] = [], timeout: Duration = .seconds(30)) async throws -> DBusValue {
        let reply = try await client.call(destination: ControlAPI.busName, path: ControlAPI.path, interface: ControlAPI.interface,
                                          member: method, arguments: args, timeout: timeout)
        return reply.arguments.first ?? .string("")
    }

    /// The D-Bus error a call fails with (nil when it succeeds).
    public func error(of method: String, _ args: [DBusValue] = []) async -> DBusError? {
        do { _ = try await call(method, args); return nil } catch let e as DBusError { return e } catch { return DBusError(.failed, "\(error)") }
    }

    public func status() async throws -> [String: DBusValue] { try await call("Status").stringVariantDictionary ?? [:] }

    /// Waits until the demo has run `seconds` (its uptime), so scenario steps have happened.
    public func waitUptime(_ seconds: Double) async throws {
        while (try await status()["uptime"]?.double ?? 0) < seconds { try await Task.sleep(for: .milliseconds(100)) }
    }

    public func tangible(named name: String) async throws -> [String: DBusValue]? {
        (try await call("List").array ?? []).compactMap(\.stringVariantDictionary).first { $0["name"]?.string == name }
    }

    public func stop() {
        client.close()
        demo.stop()
        bus.stop()
    }

    deinit { stop() }
}

/// JSON of one CLI output line.
public func jsonObject(_ text: String) -> Any? {
    guard let line = text.split(separator: "\n").first else { return nil }
    return try? JSONSerialization.jsonObject(with: Data(line.utf8))
}
