// Test harness: a private dbus-daemon (config and socket in a temp dir) and child processes ended by pid.
import Foundation
import Glibc

/// A child process that is killed by pid in `stop()` and in `deinit` (also when a test fails).
final class TestProcess: @unchecked Sendable {
    // @unchecked: `process` is only touched by the test that owns this object.
    let process: Process
    let stdout = Pipe()
    let stderr = Pipe()

    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws {
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

    var pid: Int32 { process.processIdentifier }

    /// Reads one line of stdout; nil at end of file or after `timeout` seconds (never hangs).
    func readLine(timeout: Double = 10) -> String? {
        var bytes: [UInt8] = []
        let fd = stdout.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32(remaining * 1000) + 1) > 0 else { continue }
            var byte: UInt8 = 0
            let n = read(fd, &byte, 1)
            if n < 0, errno == EINTR { continue }
            guard n == 1 else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    /// Everything the process wrote to stderr so far (for failure messages); call after stop().
    func errorOutput() -> String {
        String(decoding: stderr.fileHandleForReading.availableData, as: UTF8.self)
    }

    func stop() {
        guard process.isRunning else { return }
        // SIGKILL: children inherit the test runner's blocked-signal mask, which blocks SIGTERM.
        kill(pid, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// A private `dbus-daemon` for one test: its own config file and socket in a temp dir.
final class PrivateBus: @unchecked Sendable {
    let directory: URL
    let address: String
    private let daemon: TestProcess

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("percbridge-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(directory.path)/bus.socket</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(to: config, atomically: true, encoding: .utf8)
        daemon = try TestProcess("/usr/bin/dbus-daemon", ["--config-file=\(config.path)", "--nofork", "--print-address=1"])
        guard let line = daemon.readLine(), line.hasPrefix("unix:") else {
            daemon.stop()
            throw PrivateBusError("dbus-daemon did not print its address: \(daemon.errorOutput())")
        }
        address = line
    }

    var pid: Int32 { daemon.pid }

    func stop() {
        daemon.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}

struct PrivateBusError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
