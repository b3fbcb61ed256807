// What scan, pair and monitor share on the command line: failures, logging, JSON lines.
import Foundation
import Logging
import PercSystem
import PercBlueZ

/// Helpers of the BlueZ commands (`scan`, `pair`, `monitor`).
enum BlueZCLI {
    /// A logger to stderr: warnings only, everything from info up with --verbose.
    static func logger(_ label: String, verbose: Bool) -> Logger {
        var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .info : .warning
        return logger
    }

    /// One JSON object per line (sorted keys, so lines are stable for scripts and tests).
    static func jsonLine(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Opens a BlueZ session and checks that bluetoothd and an adapter are there.
    static func session(bus: DBusBus, logger: Logger, needAdapter: Bool = true) async throws -> BlueZSession {
        let session: BlueZSession
        do { session = try await BlueZSession.open(bus: bus, logger: logger) } catch {
            throw CLIError(.unavailable, "cannot reach the \(bus) (\(error)); is D-Bus running there? pass --bus system|session|ADDRESS")
        }
        guard session.mirror.bluetoothdPresent else {
            session.close()
            throw CLIError(.unavailable, "bluetoothd (org.bluez) is not on the \(bus); start it (systemctl start bluetooth) or pass --bus")
        }
        if needAdapter, session.mirror.adapters.isEmpty {
            session.close()
            throw CLIError(.unavailable, "BlueZ has no Bluetooth adapter; plug one in or unblock it (rfkill unblock bluetooth)")
        }
        return session
    }
}
