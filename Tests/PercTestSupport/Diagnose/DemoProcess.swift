// Test support: `percbridge demo` as a child process on a free port; ended by pid.
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

public final class DemoProcess: @unchecked Sendable {
    public let process = Process()
    public private(set) var port = 0
    private let lines = NSMutableArray()
    private let logLock = NSLock()
    private var logText = ""
    /// What the demo logged so far.
    public var log: String { logLock.lock(); defer { logLock.unlock() }; return logText }

    /// Starts the demo with `arguments` (after `demo`) and waits until it prints its web port.
    /// `binary`: another copy of `percbridge` (default: the built one).
    public init(_ arguments: [String], binary: String = CLI.binary.path) throws {
        // stdout into a pipe is block-buffered: stdbuf makes the demo print its port line at once.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        process.arguments = ["-oL", binary, "demo", "--http", "127.0.0.1:0", "--tuio", "127.0.0.1:9"] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // The log (stderr) is kept for tests that look for a line in it.
        let errHandle = err.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let data = errHandle.availableData
                if data.isEmpty { break }
                logLock.lock(); logText += String(decoding: data, as: UTF8.self); logLock.unlock()
            }
        }
        let found = DispatchSemaphore(value: 0)
        let handle = out.fileHandleForReading
        Thread.detachNewThread { [self] in
            var buffer = ""
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                buffer += String(decoding: data, as: UTF8.self)
                if port == 0, let r = buffer.range(of: #"web viewer:  http://127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
                    port = Int(buffer[r].split(separator: ":").last!.dropLast()) ?? 0
                    found.signal()
                }
            }
        }
        if found.wait(timeout: .now() + 60) == .timedOut {
            stop()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "demo did not print its web port in 60 s"])
        }
    }

    public var address: String { "127.0.0.1:\(port)" }

    /// Whether the demo still runs (or how it ended) and the end of its log: for a failing test's message.
    public var state: String {
        let status = process.isRunning ? "still running" : "ended with status \(process.terminationStatus) (\(process.terminationReason == .uncaughtSignal ? "signal" : "exit"))"
        return "percbridge demo (pid \(process.processIdentifier)) \(status); its log ends:\n" + log.split(separator: "\n").suffix(30).joined(separator: "\n")
    }

    /// Runs `body`; an error it throws is recorded with the demo's `state`, then rethrown.
    public func explaining<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch {
            Issue.record("\(error)\n\(state)")
            throw error
        }
    }

    /// Ends the demo by its pid: SIGTERM, then SIGKILL after 5 s.
    public func stop() {
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(pid, SIGKILL) }
    }

    /// Runs a shell command line with a pseudo-terminal as its stdout (util-linux `script`).
    public static func onTerminal(_ command: String) throws -> CLI.Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p.arguments = ["-qec", command, "/dev/null"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return CLI.Result(status: p.terminationStatus, stdout: String(decoding: data, as: UTF8.self), stderr: "")
    }

    public func get(_ path: String) async throws -> String {
        let (data, _) = try await URLSession.shared.data(from: URL(string: "http://\(address)\(path)")!)
        return String(decoding: data, as: UTF8.self)
    }
}
