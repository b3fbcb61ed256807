// A private dbus-daemon in a temp dir (config file + socket), for the benchmarks and the tests.
import Foundation
import Glibc
import PercSystem

/// Starts `dbus-daemon` with its own config and socket in a fresh temp dir and knows its
/// address. `stop()` (also run by `deinit`) kills it by pid and removes the dir.
public final class DBusPrivateDaemon: @unchecked Sendable {
    // @unchecked: `process` is only touched by the owner (start, then stop).
    public let directory: URL
    public let address: String
    private let process: Process

    public init(executable: String = "/usr/bin/dbus-daemon") throws {
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
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--config-file=\(config.path)", "--nofork", "--print-address=1"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            throw DBusError(.failed, "cannot start \(executable): \(error). Install the Debian package dbus (scripts/setup does).")
        }
        guard let line = Self.readLine(output.fileHandleForReading.fileDescriptor, timeout: 10), line.hasPrefix("unix:") else {
            kill(process.processIdentifier, SIGKILL)
            throw DBusError(.failed, "\(executable) did not print its address within 10 s")
        }
        address = line
    }

    public var pid: Int32 { process.processIdentifier }

    public func stop() {
        if process.isRunning {
            // SIGKILL: a child may inherit a blocked SIGTERM (e.g. from a test runner's threads).
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    /// One line from `fd`, or nil at EOF or after `timeout` seconds.
    public static func readLine(_ fd: Int32, timeout: Double) -> String? {
        var bytes: [UInt8] = []
        let deadline = MonotonicClock.nanosecondsNow() + UInt64(timeout * 1e9)
        while true {
            let now = MonotonicClock.nanosecondsNow()
            guard now < deadline else { return nil }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32((deadline - now) / 1_000_000) + 1) > 0 else { continue }
            var byte: UInt8 = 0
            let n = read(fd, &byte, 1)
            if n < 0, errno == EINTR { continue }
            guard n == 1 else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
