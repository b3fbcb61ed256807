// `bench soak`: starts serve and a busy table around it, reads serve every window of frames, and ends everything by pid.
import Foundation
import PercSystem
import PercEmulator

/// What one soak runs (the command's options, checked).
struct SoakSettings: Sendable {
    var frames: Int
    var percs: Int
    var fingers: Int
    var apps: Int
    /// serve's fixed clock, `[clock] rate_hz`.
    var rate: Double
    var window: Int
    var warmup: Int
    var percRate: Double
    /// A touchscreen's report rate: the fingers and markers go to serve as TUIO this often.
    static let touchRateHz = 120.0

    /// The soak frames at which windows end: the warm-up (if any), then every `window`
    /// frames; a remainder shorter than a window joins the last one.
    var cuts: [Int] {
        var out = warmup > 0 ? [warmup] : []
        var end = warmup + window
        while end + window <= frames {
            out.append(end)
            end += window
        }
        out.append(frames)
        return out
    }

    /// Seconds the run may take before serve counts as fallen behind: three times the clock's
    /// pace, and a minute for start-up and slow machines.
    var allowedSeconds: Double { Double(frames) / rate * 3 + 60 }
}

/// How the run ended.
struct SoakOutcome: Sendable {
    var windows: [SoakWindow] = []
    var frameThread: Int32 = 0
    /// How the bench found it and how it is scheduled: "named pb-frame-clock, SCHED_FIFO 10".
    var frameThreadScheduling = ""
    /// "exit status 0", "killed by signal 11 (Segmentation fault)".
    var serveExit = ""
    var serveExitedCleanly = false
    /// Why the run could not finish (serve died, fell behind, stopped answering).
    var failure: String?
    /// The end of serve's log, kept when the run failed.
    var serveLogTail: String?
    var seconds = 0.0
}

/// Runs serve (fixed clock, control API on the emulator's private bus) with every kind of
/// churn for `frames` frames and samples it; the emulator, dbus-daemon and serve are ended
/// by pid before `run` returns, also when it throws (`BenchServeChild.deinit`,
/// `BlueZEmulatorProcess.stop`).
struct SoakRunner {
    let binary: String
    let settings: SoakSettings

    /// `started` gets serve's frame thread and its scheduling once serve runs; `progress` each window.
    func run(started: (_ frameThread: Int32, _ scheduling: String) -> Void, progress: (SoakWindow) -> Void) async throws -> SoakOutcome {
        let s = settings
        let addresses = (0..<s.percs).map(BenchPhaseRunner.address)
        let emulator = try BlueZEmulatorProcess(percs: addresses.enumerated().map { ($1, "PERC-soak-\($0 + 1)", "perc-v1", -50) })
        defer { emulator.stop() }
        let connection = try DBusConnection(bus: .address(emulator.address))
        defer { connection.close() }
        let control = BlueZEmulatorControl(connection: connection)
        let watcher = try await BenchTUIOWatcher.start()
        let load = SoakLoad()
        do {
            let tuioIn = try await BenchPhaseRunner.freeUDPPort()
            let serve = try BenchServeChild(.init(binary: binary, percs: addresses, bus: emulator.address, tuioIn: tuioIn,
                                                  tuioOut: watcher.port, rateHz: s.rate, record: false, clock: "fixed",
                                                  controlBus: emulator.address))
            defer { serve.removeFiles() }
            let outcome = try await soak(serve: serve, tuioIn: tuioIn, bus: emulator.address, addresses: addresses, control: control,
                                         watcher: watcher, load: load, started: started, progress: progress)
            await watcher.close()
            return outcome
        } catch {
            await load.stop()
            await watcher.close()
            throw error
        }
    }

    private func soak(serve: BenchServeChild, tuioIn: Int, bus: String, addresses: [String], control: BlueZEmulatorControl,
                      watcher: BenchTUIOWatcher, load: SoakLoad, started: (Int32, String) -> Void,
                      progress: (SoakWindow) -> Void) async throws -> SoakOutcome {
        let s = settings
        var outcome = SoakOutcome()
        guard let http = await serve.httpPort(within: 30) else {
            throw BenchFailure("serve did not start within 30 s; its log:\n\(serve.log)")
        }
        _ = try await BenchPhaseRunner.waitForLinks(s.percs, http: http, serve: serve, during: "soak")
        let (tid, foundBy) = try await Self.frameThread(of: serve)
        outcome.frameThread = tid
        outcome.frameThreadScheduling = "\(foundBy), \(BenchProc.scheduling(serve.pid, thread: tid))"
        started(outcome.frameThread, outcome.frameThreadScheduling)
        load.control = try await SoakControlClient.start(bus: bus)

        let touches = try await BenchTouchSender.start(port: tuioIn, fingers: s.fingers, rateHz: SoakSettings.touchRateHz)
        load.touches = touches
        // Fingers first, older than the 200 ms time window, so they are no PERC's window traces.
        try await Task.sleep(for: .milliseconds(400))
        try await BenchPhaseRunner.place(addresses, touches: touches, control: control, watcher: watcher)
        if s.percRate > 0 { try await control.startStreamAll(rate: s.percRate, count: 0) }
        load.drawing = try await SoakDrawingApp.connect(port: http)
        load.apps = await SoakApps.start(port: http, count: s.apps)
        load.table = SoakTable.start(addresses: addresses, control: control, touches: touches, percRate: s.percRate)
        try await Task.sleep(for: .seconds(1))  // every part running before frame 0

        let begun = MonotonicClock.now()
        let deadline = begun + s.allowedSeconds
        var lastAnswer = begun
        guard var from = await sample(serve, outcome.frameThread, http, load) else {
            throw BenchFailure("serve did not answer /metrics once everything ran; its log:\n\(Self.tail(serve.log))")
        }
        let base = from.frames
        var latest = from
        watcher.reset()
        for cut in s.cuts {
            var reached: SoakSample?
            while reached == nil, outcome.failure == nil {
                try await Task.sleep(for: .milliseconds(100))
                let now = MonotonicClock.now()
                if !serve.isRunning {
                    outcome.failure = "serve ended during the run, after about \(SoakReport.grouped(latest.frames - base)) frames of the soak "
                        + "(\(Int(now - begun)) s): \(Self.exitDescription(serve.process))"
                } else if let reading = await sample(serve, outcome.frameThread, http, load) {
                    lastAnswer = now
                    latest = reading
                    if reading.frames - base >= cut { reached = reading }
                } else if now - lastAnswer > 30 {
                    outcome.failure = "serve stopped answering /metrics for 30 s (\(SoakReport.grouped(latest.frames - base)) frames of the soak so far)"
                }
                if reached == nil, outcome.failure == nil, now > deadline {
                    outcome.failure = "serve cut only \(SoakReport.grouped(latest.frames - base)) of \(SoakReport.grouped(s.frames)) frames in \(Int(now - begun)) s "
                        + "(\(Int(s.allowedSeconds)) s allowed at \(Int(s.rate)) frames/s): its frames took longer than the clock's period"
                }
            }
            // A run cut short still shows its last part, the trend before the end.
            let cutShort = reached == nil && latest.frames - from.frames >= min(1000, s.window)
            guard let to = reached ?? (cutShort ? latest : nil) else { break }
            var window = SoakWindow(number: outcome.windows.count + (s.warmup > 0 ? 0 : 1), from: from, to: to, base: base,
                                    tuio: watcher.counters)
            window.cutShort = cutShort
            watcher.reset()
            outcome.windows.append(window)
            progress(window)
            from = to
            if cutShort { break }
        }
        outcome.seconds = MonotonicClock.now() - begun
        await load.stop()
        await serve.terminate()
        outcome.serveExit = Self.exitDescription(serve.process)
        outcome.serveExitedCleanly = serve.process.terminationReason == .exit && serve.process.terminationStatus == 0
        if outcome.failure == nil, !outcome.serveExitedCleanly {
            outcome.failure = "serve did not end cleanly on SIGTERM: \(outcome.serveExit)"
        }
        if outcome.failure != nil { outcome.serveLogTail = Self.tail(serve.log) }
        return outcome
    }

    private func sample(_ serve: BenchServeChild, _ frameThread: Int32, _ http: Int, _ load: SoakLoad) async -> SoakSample? {
        await SoakSample.take(pid: serve.pid, frameThread: frameThread, http: http, churn: load.churn)
    }

    /// serve's frame clock thread: the thread named "pb-frame-clock" (the name FrameTicker
    /// gives it). Older builds named it "percbridge-frame-clock", 22 bytes: Linux keeps at most
    /// 15 and pthread_setname_np refuses a longer name, so that thread kept the name of the one
    /// that started it ("oot.default-qos"). For those, the thread found most often, of 20
    /// looks, asleep until an absolute CLOCK_MONOTONIC deadline: the fixed clock's wait.
    static func frameThread(of serve: BenchServeChild) async throws -> (tid: Int32, foundBy: String) {
        let name = "pb-frame-clock"
        let deadline = MonotonicClock.now() + 10
        repeat {
            if let tid = BenchProc.threads(of: serve.pid, named: name).first { return (tid, "named \(name)") }
            var seen: [Int32: Int] = [:]
            for _ in 0..<20 {
                for tid in BenchProc.threadsInMonotonicDeadlineSleep(of: serve.pid) { seen[tid, default: 0] += 1 }
                try await Task.sleep(for: .milliseconds(10))
            }
            if let (tid, _) = seen.max(by: { $0.value < $1.value }) { return (tid, "found asleep in clock_nanosleep") }
        } while MonotonicClock.now() < deadline && serve.isRunning
        throw BenchFailure("serve (pid \(serve.pid)) has no thread named \(name) and none asleep in "
                           + "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) (the fixed clock's wait) after 10 s, so its frame "
                           + "thread's CPU cannot be read; its log:\n\(tail(serve.log))")
    }

    static func exitDescription(_ process: Process) -> String {
        guard !process.isRunning else { return "still running" }
        let status = process.terminationStatus
        switch process.terminationReason {
        case .exit: return "exit status \(status)"
        case .uncaughtSignal: return "killed by signal \(status) (\(strsignal(status).map { String(cString: $0) } ?? "?"))"
        @unknown default: return "ended (status \(status))"
        }
    }

    /// The last `lines` lines of a log.
    static func tail(_ log: String, lines: Int = 40) -> String {
        log.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}

/// The parts of the churn started so far, stopped together (also when the run fails half-way).
final class SoakLoad {
    var touches: BenchTouchSender?
    var drawing: SoakDrawingApp?
    var apps: SoakApps?
    var table: SoakTable?
    var control: SoakControlClient?

    var churn: SoakChurn {
        SoakChurn(table: table?.counts ?? .init(), apps: apps?.counts ?? .init(), drawing: drawing?.counts ?? .init(),
                  control: control?.counts ?? .init())
    }

    func stop() async {
        await table?.stop()
        await apps?.stop()
        await drawing?.close()
        await control?.stop()
        await touches?.stop()
        table = nil; apps = nil; drawing = nil; control = nil; touches = nil
    }
}
