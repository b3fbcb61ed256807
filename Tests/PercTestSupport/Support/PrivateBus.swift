// Test harness: a private dbus-daemon (config and socket in a temp dir) and child processes ended by pid.
import Foundation
import Glibc
import PercSystem
import PercEmulator

/// A child process that is killed by pid in `stop()` and in `deinit` (also when a test fails).
public final class TestProcess: @unchecked Sendable {
    // @unchecked: `process` is only touched by the test that owns this object.
    public let process: Process
    public let stdout = Pipe()
    public let stderr = Pipe()

    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
    }

    public var pid: Int32 { process.processIdentifier }

    /// Reads one line of stdout; nil at end of file or after `timeout` seconds (never hangs).
    public func readLine(timeout: Double = 10) -> String? {
        DBusPrivateDaemon.readLine(stdout.fileHandleForReading.fileDescriptor, timeout: timeout)
    }

    /// Everything the process wrote to stderr so far (for failure messages); call after stop().
    public func errorOutput() -> String {
        String(decoding: stderr.fileHandleForReading.availableData, as: UTF8.self)
    }

    public func stop() {
        guard process.isRunning else { return }
        // SIGKILL: children inherit the test runner's blocked-signal mask, which blocks SIGTERM.
        kill(pid, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// A private `dbus-daemon` for one test (see `DBusPrivateDaemon`), killed by pid at the end.
public final class PrivateBus: @unchecked Sendable {
    private let daemon: DBusPrivateDaemon

    public init() throws { daemon = try DBusPrivateDaemon() }

    public var directory: URL { daemon.directory }
    public var address: String { daemon.address }
    public var pid: Int32 { daemon.pid }

    public func stop() { daemon.stop() }

    deinit { stop() }
}

public struct PrivateBusError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
