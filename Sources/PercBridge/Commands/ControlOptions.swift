// The options every control command shares: which bus the service is on, and --json.
import ArgumentParser
import Foundation
import PercSystem
import PercControl

/// `--bus` and `--json` of `list`, `status`, `pair`, `forget`, `define`, `calibrate`.
struct ControlOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The bus the service offers its control API on: system, session, or a bus address.",
        discussion: "The installed service (systemctl start percbridge) is on the system bus, the default; `percbridge demo` uses the session bus.",
        valueName: "system|session|ADDRESS"))
    var bus: DBusBus = .system

    @Flag(help: "Print the answer as one JSON object per line.")
    var json = false

    /// Connects, runs `body`, prints failures to stderr and exits with their status
    /// (1, or 69 when no service runs, with `noServiceHint` added).
    func run(noServiceHint: String? = nil, _ body: (ControlClient) async throws -> Void) async throws {
        do {
            let client = try ControlClient.connect(bus)
            defer { client.close() }
            try await body(client)
        } catch let f as ControlClient.Failure {
            var hint = ""
            if f.exitCode == ControlClient.noServiceExitCode {
                if await Self.serviceOnSessionBus(instead: bus) { hint += " One runs on your session bus (percbridge demo): add --bus session." }
                if let noServiceHint { hint += " \(noServiceHint)" }
            }
            throw CLIError(CLIError.Code(rawValue: f.exitCode) ?? .failure, "\(f.description)\(hint)")
        }
    }

    /// Whether, when the system bus has no service, the session bus has one (a demo).
    static func serviceOnSessionBus(instead bus: DBusBus) async -> Bool {
        guard bus == .system, ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] != nil,
              let session = try? DBusConnection(bus: .session) else { return false }
        defer { session.close() }
        return ((try? await session.nameOwner(of: ControlAPI.busName)) ?? nil) != nil
    }
}
