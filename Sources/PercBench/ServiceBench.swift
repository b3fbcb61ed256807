// `percbridge-bench service`: the whole service as installed — latency emulator → TUIO, fps, CPU and memory under load.
import ArgumentParser
import Foundation
import MTKTangibles
import NIOCore
import NIOPosix
import PercBlueZ
import PercEmulator
import PercSystem
import PercInput

struct ServiceBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service",
        abstract: "Measure `percbridge serve` end to end: latency, frames per second, CPU and memory.",
        discussion: """
        Runs `percbridge serve` (the one beside this binary, or --binary) as a child process (a temp config and registry) against the \
        BlueZ emulator on a private dbus-daemon, once per phase, each with a fresh emulator, \
        and all phases once per clock mode (--clock both: the event-driven clock and the \
        fixed-rate one side by side, same run):
          idle       no PERCs, no fingers, no apps (the baseline: what the frame clock costs)
          load       --percs PERCs placed on the surface (tracked) and notifying at --perc-rate Hz,
                     --fingers fingers moving, all sent as TUIO at --rate Hz; and a probe
                     finger (a second TUIO source) moved at random moments, timed to TUIO
                     and to a WebSocket app
          clients    load + --clients WebSocket apps reading every frame
          stalled    load + --clients apps, one of them connected but never reading
          latency    load with serve --record; PERCs in turn: field off (the tangible leaves
                     TUIO), markers lifted and put down, field on (it appears again)
          burst      --percs PERCs placed, every one notifying field and light at --burst-rate Hz, all
                     on the same phase (a burst of --percs notifications each period), fingers
                     moving, serve --record and one WebSocket app: each notification timed from
                     the emulator's send to the app's receipt of the first frame carrying it
          onebyone   burst, but the streams started one after another (phases spread)
          evdev      load + a umockdev touchscreen (serve runs under umockdev-run) whose probe
                     finger is timed from serve's read to TUIO and to the app (skipped when
                     umockdev-run is not installed)
        Prints frames per second (TUIO frames received), CPU (% of one core, from \
        /proc/<pid>/stat) and RSS of serve, each with the 1-minute load average before→after \
        and the ratio to the idle phase; the apps' frame rate and frame-to-receive latency; \
        the latency from the emulator's send (the notification's device time) to the TUIO \
        packet arriving at the bench on the same host, split into link (send → serve's \
        arrival), wait for the frame, and frame → TUIO; and the touch latencies (docs/benchmarks.md).

        Examples:
          swift build -c release && .build/release/percbridge-bench service
          .build/release/percbridge-bench service --percs 2 --fingers 2 --clients 3 --seconds 2
          .build/release/percbridge-bench service --clock events --phases idle,latency
          .build/release/percbridge-bench service --clock events --phases burst,onebyone --percs 16
        Needs scripts/setup (dbus-daemon, .venv with python-dbusmock; or PERCBRIDGE_PYTHON).
        """
    )

    @Option(help: "Emulated PERCs (1…\(BenchLayout.maxPercs)).") var percs = 16
    @Option(help: "Moving fingers sent as TUIO (0…\(BenchLayout.maxFingers)).") var fingers = 20
    @Option(help: "WebSocket app clients in the client phases (one of them stalled in the last).") var clients = 50
    @Option(help: "Seconds measured per phase.") var seconds = 10.0
    @Option(help: "Notifications per second of each PERC while on the surface (0: none).") var percRate = 30.0
    @Option(help: "Notifications per second of each PERC in the burst phases.") var burstRate = 100.0
    @Option(help: "Fixed clock rate, event clock timer rate, and touch send rate (Hz).") var rate = 120.0
    @Option(help: "The event clock's coalescing cap, `[clock] max_rate_hz` (10…10000).") var maxRate = 1000.0
    @Option(help: "Frames the event clock may cut back to back before the cap applies, `[clock] max_burst` (1…64).")
    var maxBurst = 4
    @Option(help: "Clock modes to run every phase with: events, fixed or both (side by side).") var clock = "both"
    @Option(help: "Phases to run, comma-separated (\(Self.allPhases.joined(separator: ","))).")
    var phases = Self.allPhases.joined(separator: ",")

    static let allPhases = ["idle", "load", "clients", "stalled", "latency", "burst", "onebyone", "evdev"]
    var clockModes: [String] { clock == "both" ? ["events", "fixed"] : [clock] }
    var phaseNames: [String] { phases.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
    @Option(name: .customLong("binary"), help: ArgumentHelp("The percbridge binary whose serve is measured (default: the one beside percbridge-bench).", valueName: "PATH"))
    var binaryPath: String? = nil
    @Flag(help: "Also print the figures as one JSON object (last line).") var json = false
    @Flag(name: .shortAndLong, help: "Print each latency sample (times relative to the bench's send call) to stderr.") var verbose = false

    func validate() throws {
        if let binaryPath, !FileManager.default.isExecutableFile(atPath: binaryPath) {
            throw ValidationError("--binary \(binaryPath) is not an executable file")
        }
        guard (1...BenchLayout.maxPercs).contains(percs) else { throw ValidationError("--percs must be 1…\(BenchLayout.maxPercs)") }
        guard (0...BenchLayout.maxFingers).contains(fingers) else { throw ValidationError("--fingers must be 0…\(BenchLayout.maxFingers)") }
        guard (2...500).contains(clients) else { throw ValidationError("--clients must be 2…500 (one of them stalls)") }
        guard seconds >= 1, seconds <= 600 else { throw ValidationError("--seconds must be in [1, 600]") }
        guard percRate >= 0, percRate <= 200 else { throw ValidationError("--perc-rate must be in [0, 200] Hz") }
        guard burstRate >= 1, burstRate <= 500 else { throw ValidationError("--burst-rate must be in [1, 500] Hz") }
        guard rate >= 10, rate <= 1000 else { throw ValidationError("--rate must be in [10, 1000] Hz") }
        guard (10...10000).contains(maxRate) else { throw ValidationError("--max-rate must be in [10, 10000] Hz") }
        guard (1...64).contains(maxBurst) else { throw ValidationError("--max-burst must be in [1, 64] frames") }
        guard ["events", "fixed", "both"].contains(clock) else { throw ValidationError("--clock must be events, fixed or both") }
        let unknown = phaseNames.filter { !Self.allPhases.contains($0) }
        guard unknown.isEmpty, !phaseNames.isEmpty else {
            throw ValidationError("--phases: unknown phase \(unknown.joined(separator: ", ")); choose from \(Self.allPhases.joined(separator: ","))")
        }
    }

    func run() async throws {
        guard let binary = binaryPath ?? SiblingExecutable.path("percbridge") else {
            throw BenchFailure("no percbridge beside \(SiblingExecutable.current): build it (swift build -c release) or give --binary PATH")
        }
        print("service bench: \(binary) serve; \(percs) PERCs at \(fmt(percRate, 0)) Hz, \(fingers) fingers at \(fmt(rate, 0)) Hz, "
              + "\(clients) apps, \(fmt(seconds, 0)) s per phase, \(ProcessInfo.processInfo.activeProcessorCount) cores")
        var selected = phaseNames
        if selected.contains("evdev"), !UmockdevTouchscreen.available {
            print("  evdev: skipped, \(UmockdevTouchscreen.umockdevRun) is not installed (apt-get install umockdev)")
            selected.removeAll { $0 == "evdev" }
        }
        // Each phase in every clock mode one after the other, so both modes see the same machine load.
        let phases = selected.flatMap { name in
            clockModes.map { mode in
                var p = BenchPhase(name: name, percs: name == "idle" ? 0 : percs, fingers: name == "idle" ? 0 : fingers,
                                   clients: ["clients", "stalled"].contains(name) ? clients : 0, stalled: name == "stalled",
                                   latency: name == "latency")
                p.clock = mode
                p.evdev = name == "evdev"
                p.touchProbe = name == "load"
                p.burst = BenchBurst.Pattern(rawValue: name)
                return p
            }
        }
        let watcher = try await BenchTUIOWatcher.start()
        _ = InputEventLoop.group
        print("the bench's TUIO receiver thread: \(ReceiveThreadPriority.status(of: .touchInput)); its WebSocket probe app's: \(BenchWSProbeApp.scheduling); "
              + "serve's frame clock and touch input threads: SCHED_FIFO unless PERCBRIDGE_RT_PRIORITY=0 or not permitted (serve's log says)")
        var results: [BenchPhaseResult] = []
        for phase in phases {
            let runner = BenchPhaseRunner(phase: phase, binary: binary, seconds: seconds, rate: rate, percRate: percRate,
                                          burstRate: burstRate, maxRate: maxRate, maxBurst: maxBurst, watcher: watcher, verbose: verbose)
            let r = try await runner.run()
            results.append(r)
            print("  \(phase.clock) \(phase.name): done (load \(r.load))")
        }
        await watcher.close()
        BenchReport(results: results, rate: rate).print(json: json)
    }

    private func fmt(_ v: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", v) }
}
