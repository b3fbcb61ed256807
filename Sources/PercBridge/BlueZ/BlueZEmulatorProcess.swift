// Starts a private dbus-daemon and the BlueZ emulator on it (for the notify bench and the tests).
import Foundation

/// A private bus (config and socket in a temp dir) with `perc_bluez_emulator.py` on it.
/// Both processes are ended by pid in `stop()` and in `deinit`.
///
/// Finds the emulator script as `$PERCBRIDGE_EMULATOR`, else `scripts/bluez-emulator/` in the
/// current directory or above the executable; Python as `$PERCBRIDGE_PYTHON`, else the
/// repository's `.venv/bin/python` (made by `scripts/setup`).
final class BlueZEmulatorProcess: @unchecked Sendable {
    // @unchecked: the Process objects are only touched by the owner (start, stop, deinit).
    let directory: URL
    let address: String
    private let daemon: Process
    private let emulator: Process
    private let emulatorErrors: URL
    /// The Python and the emulator script it runs (other scripts sit beside it).
    let python: String
    let script: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `percs`: (address, name, profile, rssi) added at start on hci0.
    init(percs: [(String, String, String, Int)] = [], adapters: [String] = ["hci0"]) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("percbridge-bluez-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(directory.path)/bus</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(to: config, atomically: true, encoding: .utf8)

        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=\(config.path)", "--nofork", "--print-address=1"]
        let daemonOut = Pipe()
        daemon.standardOutput = daemonOut
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        guard let line = Self.readLine(daemonOut.fileHandleForReading), line.hasPrefix("unix:") else {
            daemon.terminate()
            throw Failure(description: "dbus-daemon did not start (is the dbus package installed? scripts/setup installs it)")
        }
        address = line

        (python, script) = try Self.locate()
        emulator = Process()
        emulator.executableURL = URL(fileURLWithPath: python)
        var arguments = [script, "--bus", address]
        for a in adapters { arguments += ["--adapter", a] }
        for (addr, name, profile, rssi) in percs { arguments += ["--perc", "\(addr),\(name),\(profile),\(rssi)"] }
        emulator.arguments = arguments
        let out = Pipe()
        emulatorErrors = directory.appendingPathComponent("emulator.log")
        FileManager.default.createFile(atPath: emulatorErrors.path, contents: nil)
        emulator.standardOutput = out
        emulator.standardError = try FileHandle(forWritingTo: emulatorErrors)
        do { try emulator.run() } catch {
            daemon.terminate()
            throw Failure(description: "could not start \(python) \(script): \(error)")
        }
        guard let ready = Self.readLine(out.fileHandleForReading), ready.hasPrefix("ready") else {
            let log = (try? String(contentsOf: emulatorErrors, encoding: .utf8)) ?? ""
            stop()
            throw Failure(description: "the BlueZ emulator did not start: \(log)")
        }
    }

    /// The emulator's stderr so far (for failure messages).
    var log: String { (try? String(contentsOf: emulatorErrors, encoding: .utf8)) ?? "" }

    var emulatorPID: Int32 { emulator.processIdentifier }

    func stop() {
        // Children inherit the Swift runtime's blocked signal mask, so SIGTERM may never be
        // delivered (the emulator unblocks it; dbus-daemon does not): SIGKILL after a grace.
        for p in [emulator, daemon] where p.isRunning {
            kill(p.processIdentifier, SIGTERM)
            // Not waitUntilExit(): it spins a run loop, which stalls inside async code.
            for _ in 0..<50 where p.isRunning { usleep(10_000) }
            if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        }
        try? FileManager.default.removeItem(at: directory)
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

    private static func readLine(_ handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
