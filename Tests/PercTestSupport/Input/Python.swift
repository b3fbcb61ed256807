// Runs the test peers' Python ($PERCBRIDGE_PYTHON, else <repo>/.venv/bin/python) and other helper programs.
import Foundation

public enum Helper {
    public static var repo: URL { Fixture.directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }
    public static var python: String {
        if let p = ProcessInfo.processInfo.environment["PERCBRIDGE_PYTHON"], !p.isEmpty { return p }
        return repo.appendingPathComponent(".venv/bin/python").path
    }

    public struct Output: Sendable { public var status: Int32; public var stdout: String; public var stderr: String }

    public static func runAsync(_ exe: String, _ args: [String], timeout: Double = 20) async throws -> Output {
        try await offPool { try run(exe, args, timeout: timeout) }
    }

    /// Runs a program to its end (killed after `timeout` s), returning its output.
    public static func run(_ exe: String, _ args: [String], stdin: String? = nil, timeout: Double = 20) throws -> Output {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out; p.standardError = err; p.standardInput = inp
        try p.run()
        let pid = p.processIdentifier
        defer { if p.isRunning { kill(pid, SIGKILL) } }
        if let stdin { inp.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? inp.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        let o = Mutex2(), e = Mutex2()
        let group = DispatchGroup()
        group.enter(); DispatchQueue.global().async { o.set(out.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        group.enter(); DispatchQueue.global().async { e.set(err.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { kill(pid, SIGKILL) }
        p.waitUntilExit()
        _ = group.wait(timeout: .now() + 5)
        return Output(status: p.terminationStatus, stdout: String(decoding: o.get(), as: UTF8.self), stderr: String(decoding: e.get(), as: UTF8.self))
    }

    public final class Mutex2: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        public func set(_ d: Data) { lock.lock(); data = d; lock.unlock() }
        public func get() -> Data { lock.lock(); defer { lock.unlock() }; return data }
    }
}
