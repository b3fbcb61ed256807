// End-to-end support: `percbridge serve` as a child process with its config, log file and ports.
import Foundation
import Glibc

/// The real binary, started with a config written into a temp dir; its stderr goes to a
/// file there (read at any time, never a full pipe). Killed by pid in `deinit` when a test
/// ends early; `terminate()` is the graceful SIGTERM path.
final class ServeProcess: @unchecked Sendable {
    // @unchecked: `process` is only touched by the test that owns this object.
    let dir: URL
    let httpPort: Int
    let process = Process()
    let logURL: URL

    /// `config` is the TOML body without `[http]` (added with a free port).
    init(dir: URL, config: String, arguments: [String] = [], logLevel: String = "info") throws {
        self.dir = dir
        httpPort = TUIOPeers.freeUDPPort()  // a free number; TCP on it is free as well here
        let configURL = dir.appendingPathComponent("percbridge.toml")
        try (config + "\n[http]\nbind = \"127.0.0.1:\(httpPort)\"\n").write(to: configURL, atomically: true, encoding: .utf8)
        logURL = dir.appendingPathComponent("serve.log")
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        process.executableURL = CLI.binary
        process.arguments = ["serve", "--config", configURL.path, "--log-level", logLevel] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: logURL)
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// Waits until the log holds `text` (checking every 50 ms); false after `seconds`.
    func waitForLog(_ text: String, seconds: Double = 10) async -> Bool {
        await eventually(seconds) { self.log.contains(text) }
    }

    /// The Prometheus value of an unlabelled series, read over HTTP.
    func metric(_ name: String) async throws -> Double? {
        let lines = try await WSProbe.runAsync(["port": httpPort, "path": "/metrics", "plain": true])
        return lines.first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    /// SIGTERM, then the exit status (SIGKILL after `seconds`).
    func terminate(seconds: Double = 15) async throws -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(pid, SIGTERM)
        let process = process
        return try await offPool {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    deinit {
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// A temp dir for one test, removed at the end.
final class TempDir: Sendable {
    let url: URL
    init(_ prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    deinit { try? FileManager.default.removeItem(at: url) }
}
