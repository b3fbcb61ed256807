// `percbridge-bench notify`: notification loss and latency, emulator send → SensorEvent, both paths.
import ArgumentParser
import Foundation
import Histogram
import Logging
import MTKTangibles
import Synchronization
import PercSystem
import PercBlueZ
import PercEmulator

struct NotifyBench: AsyncParsableCommand {
    /// Reads lines of a pipe off the cooperative pool.
    final class LineReader: Sendable {
        let handle: FileHandle
        init(_ handle: FileHandle) { self.handle = handle }
        func next() async -> String? {
            let handle = self.handle
            return await withCheckedContinuation { c in
                Thread.detachNewThread {
                    var bytes: [UInt8] = []
                    while let byte = handle.readData(ofLength: 1).first, byte != UInt8(ascii: "\n") { bytes.append(byte) }
                    c.resume(returning: bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self))
                }
            }
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "BLE notification loss and latency through BlueZ: AcquireNotify vs StartNotify.",
        discussion: """
        Starts its own private dbus-daemon and the BlueZ emulator, connects --percs PERC v1 \
        modules, and lets each notify at --rate Hz for --seconds, first through AcquireNotify \
        (a socket per characteristic), then through StartNotify (PropertiesChanged signals). \
        The emulator stamps CLOCK_MONOTONIC µs into each value's device time, so the latency \
        from the emulator's send to our SensorEvent is measured exactly. Prints notifications \
        sent, received and lost (must be 0), p50/p99/max latency per path, and how many times \
        lower they are than Bleak's figures against such an emulator (fd p50 0.15 ms / p99 \
        1–2 ms; signals p50 0.45 ms / p99 3 ms; target: 3x lower).

        Example:
          swift build -c release && .build/release/percbridge-bench notify
        Needs scripts/setup (dbus-daemon, .venv with python-dbusmock).
        """
    )

    @Option(help: "Number of emulated PERCs.") var percs = 10
    @Option(help: "Notifications per second per PERC.") var rate = 100.0
    @Option(help: "Seconds of streaming per path.") var seconds = 10.0
    @Flag(help: "All PERCs notify in step (one burst per period) instead of with phases spread over the period.")
    var aligned = false
    @Flag(name: .shortAndLong, help: "Log what BlueZ does (to stderr).") var verbose = false

    /// Bleak 3.1.0 against a python-dbusmock peripheral (BLUEZ-NOTES.md): p50, p99 in ms.
    /// For the fd path's p99 (given as 1–2 ms) the lower end is used, which makes ratios harsher.
    static let bleak: [NotifyPath: (p50: Double, p99: Double)] = [.acquireNotify: (0.15, 1.0), .startNotify: (0.45, 3.0)]

    struct PathResult {
        var path: NotifyPath
        var sent = 0
        var unsent = 0
        var received = 0
        var seqLost = 0
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        /// The same latency split in two: the emulator's stamp → our read of the socket (emulator,
        /// kernel, dbus-daemon, wake-up), and that read → SensorEvent (our code).
        var transport = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        var inProcess = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        /// The emulator's own share: device-time stamp → its send() returned (µs resolution).
        var emulator = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        var lost: Int { max(0, sent - received) + seqLost }
        func ms(_ p: Double) -> Double { Double(histogram.valueAtPercentile(p)) / 1e6 }
        var maxMs: Double { Double(histogram.maxRecorded) / 1e6 }
    }

    func validate() throws {
        guard percs > 0, percs <= 50 else { throw ValidationError("--percs must be 1…50") }
        guard rate > 0, rate <= 1000 else { throw ValidationError("--rate must be in (0, 1000] Hz") }
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be in (0, 600]") }
    }

    func run() async throws {
        var logger = Logger(label: "percbridge.bench.notify") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .info : .warning
        let addresses = (1...percs).map { String(format: "C0:FF:EE:00:%02X:%02X", $0 >> 8, $0 & 0xFF) }
        let emulator = try BlueZEmulatorProcess(percs: addresses.enumerated().map { ($1, "PERC-bench-\($0 + 1)", "perc-v1", -50) })
        defer { emulator.stop() }
        let session = try await BlueZSession.open(bus: .address(emulator.address), logger: logger)
        defer { session.close() }
        let control = BlueZEmulatorControl(connection: session.connection)

        print("notify bench: \(percs) PERCs × \(rate) Hz × \(seconds) s per path, private dbus-daemon + BlueZ emulator, "
              + (aligned ? "all PERCs in step (bursts)" : "PERC phases spread over the period"))
        var results: [PathResult] = []
        var baselines: [NotifyPath: Baseline] = [:]
        for path in [NotifyPath.acquireNotify, .startNotify] {
            results.append(try await measure(path: path, addresses: addresses, session: session, control: control, logger: logger))
            try await Task.sleep(for: .milliseconds(300))
            baselines[path] = try await pythonBaseline(path: path, emulator: emulator, control: control)
        }
        print("receiving threads: AcquireNotify reader \(ReceiveThreadPriority.status(of: .notifySocket)), "
              + "D-Bus loops \(ReceiveThreadPriority.status(of: .dbusLoop))")
        report(results, baselines: baselines)
    }

    private func measure(path: NotifyPath, addresses: [String], session: BlueZSession, control: BlueZEmulatorControl,
                         logger: Logger) async throws -> PathResult {
        let collected = Mutex(PathResult(path: path))
        let links = addresses.enumerated().map { i, address in
            PercLink(configuration: .init(address: address, tangible: i + 1, profile: .percV1,
                                          preferAcquireNotify: path == .acquireNotify),
                     mirror: session.mirror, discovery: session.discovery, logger: logger,
                     onEvent: { event in
                         guard let deviceTime = event.deviceTime, event.kind != .link else { return }
                         // Latency to the SensorEvent: read the clock here, where the event is handed over.
                         let nowNs = MonotonicClock.nanosecondsNow()
                         let nowUs32 = UInt32(truncatingIfNeeded: nowNs / 1000)
                         let latencyNs = UInt64(nowUs32 &- deviceTime) * 1000 + nowNs % 1000
                         let arrivalNs = UInt64(max(0, event.arrival) * 1e9)
                         let inProcessNs = nowNs > arrivalNs ? min(nowNs - arrivalNs, latencyNs) : 0
                         collected.withLock {
                             _ = $0.histogram.record(latencyNs)
                             _ = $0.transport.record(latencyNs - inProcessNs)
                             _ = $0.inProcess.record(inProcessNs)
                         }
                     })
        }
        let runner = Task {
            await withTaskGroup(of: Void.self) { group in
                for link in links { group.addTask { await link.run() } }
            }
        }
        defer { runner.cancel() }

        // Wait until every link notifies through the path under test.
        let deadline = ContinuousClock.now + .seconds(30)
        while links.contains(where: { $0.notifyPath != path || $0.linkUps == 0 }) {
            guard ContinuousClock.now < deadline else {
                throw BenchFailure("the PERC links did not come up on \(path.rawValue) within 30 s (run with -v to see why)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        // On a loaded machine the previous baseline's stream can still be running late (its
        // timer ticks fall behind): stop it, and count and time only what comes after this point.
        for address in addresses { try await control.stopStream(address) }
        try await Task.sleep(for: .milliseconds(100))
        let before = try await sentCounts(addresses, control)
        let receivedBefore = links.map { $0.stats.notifications }.reduce(0, +)
        let seqLostBefore = links.map { $0.stats.lost }.reduce(0, +)
        collected.withLock { $0 = PathResult(path: path) }
        let count = UInt32((rate * seconds).rounded())
        try await startStreams(control, count: count)
        try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        // Let the last ones arrive: until every sent notification is in, or 3 s.
        var result = collected.withLock { $0 }
        let settle = ContinuousClock.now + .seconds(3)
        while true {
            let after = try await sentCounts(addresses, control)
            result.sent = zip(after, before).map { $0.0.sent - $0.1.sent }.reduce(0, +)
            result.unsent = zip(after, before).map { $0.0.unsent - $0.1.unsent }.reduce(0, +)
            result.received = links.map { $0.stats.notifications }.reduce(0, +) - receivedBefore
            let streaming = result.sent + result.unsent < Int(count) * addresses.count
            if (!streaming && result.received >= result.sent) || ContinuousClock.now > settle { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        result.seqLost = links.map { $0.stats.lost }.reduce(0, +) - seqLostBefore
        for us in try await control.sendCosts() { _ = result.emulator.record(UInt64(us) * 1000) }
        (result.histogram, result.transport, result.inProcess) = collected.withLock { ($0.histogram, $0.transport, $0.inProcess) }
        runner.cancel()
        _ = await runner.value
        return result
    }

    /// The same streams received by Bleak (scripts/bluez-emulator/bleak_notify_client.py) when
    /// it is installed in the emulator's Python, else by a plain dbus-python + GLib client
    /// (python_notify_client.py), in the same run.
    struct Baseline: Decodable {
        var client: String?
        var received: Int
        var p50: Double
        var p99: Double
        var max: Double
        enum CodingKeys: String, CodingKey { case client, received, p50 = "p50_ms", p99 = "p99_ms", max = "max_ms" }
    }

    private func pythonBaseline(path: NotifyPath, emulator: BlueZEmulatorProcess,
                                control: BlueZEmulatorControl) async throws -> Baseline? {
        if let bleak = try await runBaseline("bleak_notify_client.py", path: path, emulator: emulator, control: control) {
            return bleak
        }
        var plain = try await runBaseline("python_notify_client.py", path: path, emulator: emulator, control: control)
        if plain?.client == nil { plain?.client = "dbus-python + GLib (Bleak not installed)" }
        return plain
    }

    /// Runs one baseline client script; nil when it could not subscribe (e.g. Bleak missing).
    private func runBaseline(_ name: String, path: NotifyPath, emulator: BlueZEmulatorProcess,
                             control: BlueZEmulatorControl) async throws -> Baseline? {
        let script = URL(fileURLWithPath: emulator.script).deletingLastPathComponent().appendingPathComponent(name).path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: emulator.python)
        p.arguments = [script, "--bus", emulator.address, "--path", path == .acquireNotify ? "fd" : "signal",
                       "--seconds", String(seconds + 2)]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        let lines = LineReader(out.fileHandleForReading)
        guard await lines.next() == "subscribed" else { return nil }
        try await startStreams(control, count: UInt32((rate * seconds).rounded()))
        guard let json = await lines.next() else { return nil }
        // Bleak disconnects its devices when it ends: let that settle before the next path.
        try await Task.sleep(for: .milliseconds(300))
        return try? JSONDecoder().decode(Baseline.self, from: Data(json.utf8))
    }

    private func startStreams(_ control: BlueZEmulatorControl, count: UInt32) async throws {
        if aligned {
            try await control.startStreamAll(rate: rate, count: count)
        } else {
            try await control.startStreamAllStaggered(rate: rate, count: count)
        }
    }

    private func sentCounts(_ addresses: [String], _ control: BlueZEmulatorControl) async throws -> [(sent: Int, unsent: Int)] {
        var out: [(Int, Int)] = []
        for a in addresses {
            let s = try await control.stats(a)
            out.append((s["sent"]?.int ?? 0, s["unsent"]?.int ?? 0))
        }
        return out
    }

    private func report(_ results: [PathResult], baselines: [NotifyPath: Baseline]) {
        func f(_ v: Double) -> String { String(format: "%.3f", v) }
        func ms(_ h: Histogram<UInt64>, _ p: Double) -> Double { Double(h.valueAtPercentile(p)) / 1e6 }
        print("")
        print("Baseline in this run, on the same streams:")
        for r in results {
            guard let b = baselines[r.path] else {
                print("  \(r.path.rawValue): the Python baseline did not run")
                continue
            }
            print("  \(r.path.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0)) \(b.client ?? "python") received \(b.received)  "
                  + "p50 \(f(b.p50)) ms  p99 \(f(b.p99)) ms  max \(f(b.max)) ms  → PercBridge "
                  + String(format: "%.1fx lower p50, %.1fx lower p99", b.p50 / max(r.ms(50), 1e-6), b.p99 / max(r.ms(99), 1e-6)))
        }
        print("")
        print("path           sent   received  lost  p50 ms  p99 ms  max ms   vs BLUEZ-NOTES Bleak p50 / p99")
        var notesOK = true, sameRunOK = baselines.count == results.count
        for r in results {
            let bleak = Self.bleak[r.path]!
            let r50 = bleak.p50 / max(r.ms(50), 0.000_001)
            let r99 = bleak.p99 / max(r.ms(99), 0.000_001)
            let clean = r.lost == 0 && r.unsent == 0
            notesOK = notesOK && clean && r50 >= 3 && r99 >= 3
            if let b = baselines[r.path] {
                sameRunOK = sameRunOK && clean && b.p50 / max(r.ms(50), 1e-6) >= 3 && b.p99 / max(r.ms(99), 1e-6) >= 3
            }
            print(r.path.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0)
                  + String(format: "%6d  %9d  %4d  ", r.sent, r.received, r.lost)
                  + "\(f(r.ms(50)))   \(f(r.ms(99)))   \(f(r.maxMs))   "
                  + String(format: "%5.1fx / %.1fx lower", r50, r99))
            print("  split: stamp → our socket read (emulator, kernel, dbus-daemon, wake-up) p50 \(f(ms(r.transport, 50)))  p99 \(f(ms(r.transport, 99)));  "
                  + "read → SensorEvent (our code) p50 \(f(ms(r.inProcess, 50)))  p99 \(f(ms(r.inProcess, 99)))  max \(f(Double(r.inProcess.maxRecorded) / 1e6)) ms")
            print("  the emulator's own part (stamp → its send() returned, counted above): p50 \(f(ms(r.emulator, 50)))  p99 \(f(ms(r.emulator, 99)))")
            if r.unsent > 0 { print("  (the emulator could not send \(r.unsent): nobody subscribed or the socket was full)") }
        }
        print("")
        print("BLUEZ-NOTES Bleak figures: AcquireNotify p50 0.15 ms, p99 1 ms (of 1–2); StartNotify p50 0.45 ms, p99 3 ms.")
        print("target (≥3x lower p50 and p99 on both paths, no loss) vs the BLUEZ-NOTES figures: " + (notesOK ? "met" : "NOT met"))
        print("target vs the baseline of this run: " + (sameRunOK ? "met" : "NOT met"))
    }
}
