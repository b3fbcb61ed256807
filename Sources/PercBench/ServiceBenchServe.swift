// `bench service`: `percbridge serve` (this very binary) as a child process with a temp config and registry.
import Foundation
import MTKTangibles
import PercSystem
import PercEmulator
import PercRuntime

/// One `serve` run: writes a config and a registry of standard PERCs into a temp dir,
/// starts the binary, and finds its HTTP port in its log. Ended by pid: `terminate()`
/// (SIGTERM, SIGKILL after a grace) and again in `deinit` if the bench fails early.
final class BenchServeChild: @unchecked Sendable {
    // @unchecked: `process` is only touched by the bench task that owns this object.
    struct Setup {
        var binary: String
        /// Bluetooth addresses of the PERCs to register (standard PERC v1 definitions).
        var percs: [String]
        var bus: String
        var tuioIn: Int
        var tuioOut: Int
        var rateHz: Double
        var record: Bool
        /// `[clock] mode`: "events" or "fixed".
        var clock: String
        /// `[clock] max_rate_hz` (the event clock's coalescing cap).
        var maxRateHz: Double = 1000
        /// `[clock] max_burst` (frames the event clock may cut back to back).
        var maxBurst = 4
        /// Run serve under umockdev-run with this fake touchscreen as an evdev input.
        var evdev: UmockdevTouchscreen? = nil
        /// `[control] bus`: the control API on this bus (the emulator's private one). nil
        /// leaves `[control]` at its default, the system bus, where serve may not own the name.
        var controlBus: String? = nil
    }

    let dir: URL
    let process = Process()
    /// serve is umockdev-run's child, not ours.
    private var wrapped = false
    private var childPID: Int32?
    let logURL: URL
    var recordingPath: String { dir.appendingPathComponent("run.jsonl").path }

    init(_ setup: Setup) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-bench-service-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let registryPath = dir.appendingPathComponent("tangibles.json").path
        var registry = TangibleRegistry()
        for (i, address) in setup.percs.enumerated() {
            _ = try registry.add(.standardPerc(id: 0, name: "bench-\(i + 1)", address: address))
        }
        try RegistryStore(path: registryPath).save(registry)
        // Presented reports do not cut frames (`follow_presented = false`): the clock's own rate
        // is what is measured, also when an app draws (bench soak). One TUIO 1.1 datagram per
        // frame (the receiver takes 64 KiB). `rate_hz` is the fixed clock's tick rate, and the
        // event clock's timer while time alone changes the engine.
        let config = """
            [surface]
            width_mm = \(BenchLayout.surface.x)
            height_mm = \(BenchLayout.surface.y)
            [clock]
            mode = "\(setup.clock)"
            rate_hz = \(setup.rateHz)
            max_rate_hz = \(setup.maxRateHz)
            max_burst = \(setup.maxBurst)
            follow_presented = false
            [[input]]
            kind = "tuio"
            listen = "127.0.0.1:\(setup.tuioIn)"
            \(setup.evdev == nil ? "" : "[[input]]\nkind = \"evdev\"\ndevice = \"\(UmockdevTouchscreen.node)\"")
            [tuio]
            targets = ["127.0.0.1:\(setup.tuioOut)"]
            version = "1.1"
            max_datagram_bytes = 65000
            [http]
            bind = "127.0.0.1:0"
            [bluetooth]
            bus = "\(setup.bus)"
            max_backoff_s = 1
            [registry]
            path = "\(registryPath)"
            \(setup.controlBus.map { "[control]\nenabled = true\nbus = \"\($0)\"" } ?? "")
            """
        let configPath = dir.appendingPathComponent("percbridge.toml").path
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        logURL = dir.appendingPathComponent("serve.log")
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let command = [setup.binary, "serve", "--config", configPath, "--log-level", "notice"]
            + (setup.record ? ["--record", recordingPath] : [])
        if let bed = setup.evdev {
            wrapped = true
            process.executableURL = URL(fileURLWithPath: UmockdevTouchscreen.umockdevRun)
            process.arguments = bed.umockdevArguments(command)
        } else {
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: logURL)
        try process.run()
    }

    /// serve's pid (under umockdev-run: its child, found in /proc once it runs).
    var pid: Int32 {
        guard wrapped else { return process.processIdentifier }
        if let childPID { return childPID }
        let parent = process.processIdentifier
        let text = (try? String(contentsOfFile: "/proc/\(parent)/task/\(parent)/children", encoding: .utf8)) ?? ""
        if let first = text.split(separator: " ").first, let p = Int32(first) { childPID = p; return p }
        return parent
    }
    var isRunning: Bool { process.isRunning }
    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// The HTTP port serve bound (it logs "… on http://127.0.0.1:PORT/"), nil after `seconds`.
    func httpPort(within seconds: Double) async -> Int? {
        let deadline = MonotonicClock.now() + seconds
        while MonotonicClock.now() < deadline, isRunning {
            if let range = log.range(of: "on http://127.0.0.1:") {
                let digits = log[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits) { return port }
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// SIGTERM, then SIGKILL after `grace` seconds; returns the exit status. Polls instead of
    /// `waitUntilExit()` (which spins a run loop and stalls inside async code).
    @discardableResult
    func terminate(grace: Double = 10) async -> Int32 {
        if process.isRunning {
            let serve = pid
            kill(serve, SIGTERM)
            let deadline = MonotonicClock.now() + grace
            while process.isRunning && MonotonicClock.now() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
            if process.isRunning { kill(serve, SIGKILL); kill(process.processIdentifier, SIGKILL) }
            while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        }
        return process.terminationStatus
    }

    /// Removes serve's temp dir (config, registry, serve.log, run.jsonl), unless
    /// PERCBRIDGE_KEEP_TMP=1 asks to keep it for a look (as the tests do).
    func removeFiles() {
        guard ProcessInfo.processInfo.environment["PERCBRIDGE_KEEP_TMP"] != "1" else { return }
        try? FileManager.default.removeItem(at: dir)
    }

    deinit {
        if process.isRunning {
            if wrapped, let childPID { kill(childPID, SIGKILL) }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        removeFiles()
    }
}
