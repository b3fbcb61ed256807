// Starts a private dbus-daemon and the BlueZ emulator on it (for the notify bench and the tests).
import Foundation
import PercSystem
import PercBlueZ

/// A private bus (config and socket in a temp dir) with `perc_bluez_emulator.py` on it.
/// Both processes are ended by pid in `stop()` and in `deinit`.
///
/// Finds the emulator script as `$PERCBRIDGE_EMULATOR`, else `scripts/bluez-emulator/` in the
/// current directory or above the executable; Python as `$PERCBRIDGE_PYTHON`, else the
/// repository's `.venv/bin/python` (made by `scripts/setup`).
public final class BlueZEmulatorProcess: @unchecked Sendable {
    // @unchecked: the Process objects are only touched by the owner (start, stop, deinit).
    /// The private bus the emulator serves; its temp dir also holds the emulator's log.
    private let bus: DBusPrivateDaemon
    public var directory: URL { bus.directory }
    public var address: String { bus.address }
    private let emulator: Process
    private let emulatorErrors: URL
    /// The Python and the emulator script it runs (other scripts sit beside it).
    public let python: String
    public let script: String

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// `percs`: (address, name, profile, rssi) added at start on hci0.
    public init(percs: [(String, String, String, Int)] = [], adapters: [String] = ["hci0"]) throws {
        do { bus = try DBusPrivateDaemon() } catch {
            throw Failure(description: "\(error)")
        }
        (python, script) = try Self.locate()
        emulator = Process()
        emulator.executableURL = URL(fileURLWithPath: python)
        var arguments = [script, "--bus", bus.address]
        for a in adapters { arguments += ["--adapter", a] }
        for (addr, name, profile, rssi) in percs { arguments += ["--perc", "\(addr),\(name),\(profile),\(rssi)"] }
        emulator.arguments = arguments
        let out = Pipe()
        emulatorErrors = bus.directory.appendingPathComponent("emulator.log")
        FileManager.default.createFile(atPath: emulatorErrors.path, contents: nil)
        emulator.standardOutput = out
        emulator.standardError = try FileHandle(forWritingTo: emulatorErrors)
        do { try emulator.run() } catch {
            bus.stop()
            throw Failure(description: "could not start \(python) \(script): \(error)")
        }
        guard let ready = DBusPrivateDaemon.readLine(out.fileHandleForReading.fileDescriptor, timeout: 30),
              ready.hasPrefix("ready") else {
            let log = (try? String(contentsOf: emulatorErrors, encoding: .utf8)) ?? ""
            stop()
            throw Failure(description: "the BlueZ emulator did not start: \(log)")
        }
    }

    /// The emulator's stderr so far (for failure messages).
    public var log: String { (try? String(contentsOf: emulatorErrors, encoding: .utf8)) ?? "" }

    public var emulatorPID: Int32 { emulator.processIdentifier }

    public func stop() {
        // Children inherit the Swift runtime's blocked signal mask, so SIGTERM may never be
        // delivered (the emulator unblocks it; dbus-daemon does not): SIGKILL after a grace.
        if emulator.isRunning {
            kill(emulator.processIdentifier, SIGTERM)
            // Not waitUntilExit(): it spins a run loop, which stalls inside async code.
            for _ in 0..<50 where emulator.isRunning { usleep(10_000) }
            if emulator.isRunning { kill(emulator.processIdentifier, SIGKILL) }
        }
        bus.stop()
    }

    deinit { stop() }

    private static func locate() throws -> (python: String, script: String) {
        let env = ProcessInfo.processInfo.environment
        let fm = FileManager.default
        var roots: [URL] = [URL(fileURLWithPath: fm.currentDirectoryPath)]
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            roots.append(dir)
            dir = dir.deletingLastPathComponent()
        }
        let relative = "scripts/bluez-emulator/perc_bluez_emulator.py"
        let root = roots.first { fm.fileExists(atPath: $0.appendingPathComponent(relative).path) }
        guard let script = env["PERCBRIDGE_EMULATOR"] ?? root.map({ $0.appendingPathComponent(relative).path }) else {
            throw Failure(description: "cannot find \(relative); run from the repository or set PERCBRIDGE_EMULATOR")
        }
        let venv = root.map { $0.appendingPathComponent(".venv/bin/python").path }
        guard let python = env["PERCBRIDGE_PYTHON"] ?? venv.flatMap({ fm.isExecutableFile(atPath: $0) ? $0 : nil }) else {
            throw Failure(description: "no Python with python-dbusmock: run scripts/setup (makes .venv) or set PERCBRIDGE_PYTHON")
        }
        return (python, script)
    }
}
