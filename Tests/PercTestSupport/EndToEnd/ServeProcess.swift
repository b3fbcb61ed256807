// End-to-end support: `percbridge serve` as a child process with its config, log file and ports.
import Foundation
import Glibc
import MTKTangibles
import PercRuntime

/// The real binary, started with a config written into a temp dir; its stderr goes to a
/// file there (read at any time, never a full pipe). Killed by pid in `deinit` when a test
/// ends early; `terminate()` is the graceful SIGTERM path.
public final class ServeProcess: @unchecked Sendable {
    // @unchecked: `process` is only touched by the test that owns this object.
    public let dir: URL
    public let httpPort: Int
    public let process = Process()
    public let logURL: URL

    /// What a test's config says; everything else keeps its default, and `[http]` binds a
    /// free loopback port.
    public struct Setup {
        /// The registry file.
        public var registry: String
        /// `[bluetooth] bus`; nil: the default (system).
        public var bus: String? = nil
        public var maxBackoffS: Double? = nil
        /// An evemu recording played as a touch input.
        public var touches: String? = nil
        /// A TUIO input listening on this loopback port.
        public var tuioListen: Int? = nil
        /// TUIO output (both versions) to these loopback ports; none: TUIO output off.
        public var tuioTargets: [Int] = []

        public init(registry: String, bus: String? = nil, maxBackoffS: Double? = nil, touches: String? = nil,
                    tuioListen: Int? = nil, tuioTargets: [Int] = []) {
            self.registry = registry
            self.bus = bus
            self.maxBackoffS = maxBackoffS
            self.touches = touches
            self.tuioListen = tuioListen
            self.tuioTargets = tuioTargets
        }

        public var toml: String {
            var lines = ["[surface]", "width_mm = 800", "height_mm = 500"]
            if let touches { lines += ["[[input]]", "kind = \"recording\"", "file = \"\(touches)\""] }
            if let tuioListen { lines += ["[[input]]", "kind = \"tuio\"", "listen = \"127.0.0.1:\(tuioListen)\""] }
            lines += ["[tuio]"] + (tuioTargets.isEmpty ? ["enabled = false"]
                : ["targets = [\(tuioTargets.map { "\"127.0.0.1:\($0)\"" }.joined(separator: ", "))]", "version = \"both\""])
            lines += ["[bluetooth]"] + (bus.map { ["bus = \"\($0)\""] } ?? []) + (maxBackoffS.map { ["max_backoff_s = \($0)"] } ?? [])
            lines += ["[registry]", "path = \"\(registry)\""]
            return lines.joined(separator: "\n") + "\n"
        }
    }

    public convenience init(dir: URL, _ setup: Setup, arguments: [String] = [], logLevel: String = "info") throws {
        try self.init(dir: dir, config: setup.toml, arguments: arguments, logLevel: logLevel)
    }

    /// `config` is the TOML body without `[http]` (added with a free port, and `http`'s
    /// extra lines of that table); `environment` is added to the test's own.
    public init(dir: URL, config: String, arguments: [String] = [], logLevel: String = "info",
                environment: [String: String] = [:], http: [String] = []) throws {
        self.dir = dir
        httpPort = TUIOPeers.freeUDPPort()  // a free number; TCP on it is free as well here
        let configURL = dir.appendingPathComponent("percbridge.toml")
        try (config + "\n[http]\nbind = \"127.0.0.1:\(httpPort)\"\n" + http.map { $0 + "\n" }.joined())
            .write(to: configURL, atomically: true, encoding: .utf8)
        logURL = dir.appendingPathComponent("serve.log")
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        process.executableURL = CLI.binary
        process.arguments = ["serve", "--config", configURL.path, "--log-level", logLevel] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: logURL)
        try process.run()
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    public var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// Waits until the log holds `text` (checking every 50 ms); false after `seconds`.
    public func waitForLog(_ text: String, seconds: Double = 10) async -> Bool {
        await eventually(seconds) { self.log.contains(text) }
    }

    /// The Prometheus value of an unlabelled series, read over HTTP.
    public func metric(_ name: String) async throws -> Double? {
        let lines = try await WSProbe.runAsync(["port": httpPort, "path": "/metrics", "plain": true])
        return lines.first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    /// How many pointers (touches no tangible holds) the latest frame has, read over HTTP (`/api/state`).
    public func pointers() async throws -> Int? {
        let lines = try await WSProbe.runAsync(["port": httpPort, "path": "/api/state", "plain": true])
        guard let body = lines.dropFirst().first(where: { $0.hasPrefix("{") }),
              let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
        return (json["pointers"] as? [Any])?.count
    }

    /// SIGTERM, then the exit status (SIGKILL after `seconds`).
    public func terminate(seconds: Double = 15) async throws -> Int32 {
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

extension ServeProcess {
    /// serve on touches alone, in `tmp`: an empty registry, no TUIO out, no BlueZ, no control
    /// API; `inputs` is the TOML of its `[[input]]` sections (none: no touch input).
    public static func touchesOnly(in tmp: TempDir, inputs: String = "", http: [String] = [],
                                   logLevel: String = "info") throws -> ServeProcess {
        try RegistryStore(path: tmp.path("tangibles.json")).save(TangibleRegistry())
        return try ServeProcess(dir: tmp.url, config: """
            [surface]
            width_mm = 800
            height_mm = 500
            \(inputs)
            [tuio]
            enabled = false
            [bluetooth]
            enabled = false
            [control]
            enabled = false
            [registry]
            path = "\(tmp.path("tangibles.json"))"
            """, logLevel: logLevel, http: http)
    }
}

/// A temp dir for one test, removed at the end (kept when `PERCBRIDGE_KEEP_TMP=1`, to look
/// at a failed run's recording and logs).
public final class TempDir: Sendable {
    public let url: URL
    public init(_ prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    deinit {
        if ProcessInfo.processInfo.environment["PERCBRIDGE_KEEP_TMP"] == "1" { return }
        try? FileManager.default.removeItem(at: url)
    }
}

extension ServeProcess.Setup {
    /// Writes into `tmp` a registry with the PUC "puc" (a 40 x 25 mm triangle) and the
    /// standard PERC "red" (the emulator's PERC GATT v1 device), and `touches` as the
    /// recording input.
    public static func pucAndRed(in tmp: TempDir, touches: EvemuScript, bus: String) throws -> Self {
        var registry = TangibleRegistry()
        _ = try registry.add(TangibleDefinition(id: 0, name: "puc", kind: .puc, markers: [Vec2(0, 0), Vec2(40, 0), Vec2(0, 25)],
                                                footprint: .circle(radius: 30)))
        _ = try registry.add(.standardPerc(id: 0, name: "red", address: BlueZTestbed.v1))
        try RegistryStore(path: tmp.path("tangibles.json")).save(registry)
        try touches.text.write(toFile: tmp.path("touches.events"), atomically: true, encoding: .utf8)
        return .init(registry: tmp.path("tangibles.json"), bus: bus, touches: tmp.path("touches.events"))
    }
}
