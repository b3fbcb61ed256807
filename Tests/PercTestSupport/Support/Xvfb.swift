// Test harness: a private Xvfb on a free display, its X clients, all ended by pid.
import Foundation
import Glibc
import PercEmulator

/// A private `Xvfb` for one test: a display number of its own (`-displayfd`), one screen of
/// `width`×`height`×24, no TCP, no reset when the last client leaves (so `xsetroot`'s background
/// stays). Killed by pid in `stop()` and in `deinit` (also when a test fails); its log stays in
/// `log` for failure messages.
public final class Xvfb: @unchecked Sendable {
    // @unchecked: `process` is only touched by the test that owns this object.
    public let display: String
    public let width: Int
    public let height: Int
    private let process: Process
    private let directory: URL

    public init(width: Int = 640, height: Int = 480, executable: String = "/usr/bin/Xvfb") throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw PrivateBusError("\(executable) is missing: install the Debian package xvfb (scripts/setup does)")
        }
        self.width = width
        self.height = height
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("percbridge-xvfb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let logURL = directory.appendingPathComponent("Xvfb.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        // -displayfd 1: Xvfb picks a free display and writes its number to stdout once it is ready.
        process.arguments = ["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp", "-noreset"]
        let numberPipe = Pipe()
        process.standardOutput = numberPipe
        process.standardError = try FileHandle(forWritingTo: logURL)
        try process.run()
        let line = DBusPrivateDaemon.readLine(numberPipe.fileHandleForReading.fileDescriptor, timeout: 10)
        guard let line, let number = Int(line.trimmingCharacters(in: .whitespaces)) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: directory)
            throw PrivateBusError("Xvfb did not report a display within 10 s: \(log)")
        }
        display = ":\(number)"
        guard Self.waitUntilAccepting(number, timeout: 10) else {
            stop()
            throw PrivateBusError("Xvfb \(display) reported its display but accepts no connection on /tmp/.X11-unix/X\(number)")
        }
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// Xvfb's stderr so far.
    public var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("Xvfb.log"), encoding: .utf8)) ?? ""
    }

    /// The environment for a client of this display.
    public var environment: [String: String] {
        ProcessInfo.processInfo.environment.merging(["DISPLAY": display]) { _, new in new }
    }

    public func stop() {
        if process.isRunning {
            // SIGKILL: children inherit the test runner's blocked-signal mask, which blocks SIGTERM.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    /// Starts a long-running client of this display (xev), ended by pid like the server.
    public func client(_ executable: String, _ arguments: [String]) throws -> TestProcess {
        try TestProcess(executable, arguments, environment: ["DISPLAY": display])
    }

    /// Runs a short client of this display to its end (killed after `timeout` s): its status and raw stdout.
    public func run(_ executable: String, _ arguments: [String], timeout: Double = 10) throws -> (status: Int32, stdout: Data, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.environment = environment
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let pid = p.processIdentifier
        defer { if p.isRunning { kill(pid, SIGKILL); p.waitUntilExit() } }
        // Read while it runs: a screen dump is bigger than a pipe's buffer.
        let collected = CollectedOutput()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { collected.set(out: out.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        group.enter()
        DispatchQueue.global().async { collected.set(err: err.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(5_000) }
        if p.isRunning { kill(pid, SIGKILL) }
        p.waitUntilExit()
        _ = group.wait(timeout: .now() + 5)
        return (p.terminationStatus, collected.out, String(decoding: collected.err, as: UTF8.self))
    }

    private static func waitUntilAccepting(_ number: Int, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if canConnect(path: "/tmp/.X11-unix/X\(number)") { return true }
            usleep(10_000)
        } while Date() < deadline
        return false
    }

    private static func canConnect(path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (i, b) in bytes.enumerated() { buffer[i] = b }
        }
        return withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    private final class CollectedOutput: @unchecked Sendable {
        private let lock = NSLock()
        private var outData = Data()
        private var errData = Data()
        func set(out: Data) { lock.lock(); outData = out; lock.unlock() }
        func set(err: Data) { lock.lock(); errData = err; lock.unlock() }
        var out: Data { lock.lock(); defer { lock.unlock() }; return outData }
        var err: Data { lock.lock(); defer { lock.unlock() }; return errData }
    }
}
