// `percbridge-bench soak`: `percbridge serve` under a busy table's churn for hundreds of thousands of frames — does a frame cost more the longer serve runs?
import ArgumentParser
import Foundation
import PercSystem

/// Issue 36: closures kept in a `Mutex` were wrapped in two more reabstraction thunks on every
/// read, once per frame, so each frame took longer than the last and the frame thread's stack
/// grew until serve crashed after 22 minutes on a busy table. A run of seconds shows none of
/// that; this one runs serve for `--frames` frames with everything that reaches a per-frame
/// path going on, and compares what a frame costs at the end with the start.
struct SoakBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Run `percbridge serve` for --frames frames under a busy table's churn; fail when a frame costs more at the end.",
        discussion: """
        Runs `percbridge serve` (the one beside this binary, or --binary) as a child process \
        with its fixed clock at --rate frames a second and its D-Bus control API on, both on \
        the BlueZ emulator's private dbus-daemon, and keeps a busy table going around it for \
        the whole run:
          PERCs     --percs emulated PERCs (perc-v1) notifying at --perc-rate Hz; one at a
                    time lifted (field off, markers up) and put down elsewhere (markers
                    down, field on), one at a time slid a few centimetres; every 4–6 s
                    one's link drops and comes back
          fingers   --fingers fingers circling, sent as TUIO with the markers at 120 Hz
          apps      --apps WebSocket apps reading every frame, each leaving after 2–8 s and
                    replaced at once (every fourth says it draws)
          drawing   one app that draws: a presented report for each overlay, and again
                    with every frame while patches are up (as a display shows them)
          control   a D-Bus client listening to TangibleChanged and TangiblesOnSurface,
                    calling Status every second and List every other
        Every --window frames (the first after --warmup frames) it prints, read from outside: \
        the frames so far (serve's /metrics), frames per second, the CPU time of serve's frame \
        thread per frame (/proc/<pid>/task/<tid>/stat), of the whole process per frame, and \
        serve's RSS. At the end it compares the first windows after the warm-up (start) with \
        the last (end) and fails (exit 1) when the end's frame-thread CPU per frame or RSS is \
        more than --max-growth % above the start's, when serve dies or falls behind its clock \
        (3x the run's length), when serve does not end cleanly on SIGTERM, or when serve \
        closes the drawing app. Start and end are medians of three windows each when there \
        are six or more (docs/benchmarks.md, "bench soak", has figures of builds before and \
        after issue 36).

        Examples:
          swift build -c release && .build/release/percbridge-bench soak    # 500,000 frames: 9 min
          .build/release/percbridge-bench soak --frames 100000 --binary /tmp/percbridge-old
          .build/release/percbridge-bench soak --frames 6000 --warmup 2000 --window 2000 --json
        Needs scripts/setup (dbus-daemon, .venv with python-dbusmock; or PERCBRIDGE_PYTHON).
        """
    )

    @Option(help: "Frames to run, counted from the moment all the churn runs (the warm-up included).") var frames = 500_000
    @Option(help: "Emulated PERCs (1…\(BenchLayout.maxPercs)).") var percs = 4
    @Option(help: "Fingers circling on the surface (0…\(BenchLayout.maxFingers)).") var fingers = 6
    @Option(help: "WebSocket apps coming and going, each reading every frame for 2–8 s (0…\(SoakApps.maxApps)).") var apps = 40
    @Option(help: "Frames per second: serve's fixed clock, `[clock] rate_hz` (10…1000, serve's cap).") var rate = 1000.0
    @Option(help: "Frames per measured window: one progress line each.") var window = 25_000
    @Option(help: "Frames before the first measured window (start-up: caches, trace history, buffers filling).") var warmup = 20_000
    @Option(help: "Notifications per second of each PERC while on the surface (0…200).") var percRate = 30.0
    @Option(name: .customLong("binary"), help: ArgumentHelp("The percbridge binary whose serve is run (default: the one beside percbridge-bench).", valueName: "PATH"))
    var binaryPath: String? = nil
    @Flag(help: "Also print the figures as one JSON object (last line).") var json = false
    @Option(help: ArgumentHelp("Fail when the end window's frame-thread CPU per frame or RSS is more than PCT % above the start window's.",
                               valueName: "PCT"))
    var maxGrowth = 10.0

    var settings: SoakSettings {
        SoakSettings(frames: frames, percs: percs, fingers: fingers, apps: apps, rate: rate, window: window, warmup: warmup, percRate: percRate)
    }

    func validate() throws {
        if let binaryPath, !FileManager.default.isExecutableFile(atPath: binaryPath) {
            throw ValidationError("--binary \(binaryPath) is not an executable file")
        }
        guard (1...BenchLayout.maxPercs).contains(percs) else { throw ValidationError("--percs must be 1…\(BenchLayout.maxPercs)") }
        guard (0...BenchLayout.maxFingers).contains(fingers) else { throw ValidationError("--fingers must be 0…\(BenchLayout.maxFingers)") }
        guard (0...SoakApps.maxApps).contains(apps) else {
            throw ValidationError("--apps must be 0…\(SoakApps.maxApps) (serve takes 64 apps; the drawing app and apps still closing need room)")
        }
        guard rate >= 10, rate <= 1000 else { throw ValidationError("--rate must be in [10, 1000] frames/s (serve's [clock] rate_hz)") }
        guard percRate >= 0, percRate <= 200 else { throw ValidationError("--perc-rate must be in [0, 200] Hz") }
        guard window >= 100 else { throw ValidationError("--window must be at least 100 frames") }
        guard warmup >= 0 else { throw ValidationError("--warmup must be 0 or more frames") }
        guard frames > 0, frames <= 1_000_000_000 else { throw ValidationError("--frames must be 1…1,000,000,000") }
        guard frames >= warmup + 2 * window else {
            throw ValidationError("--frames must be at least --warmup + 2 × --window (\(warmup + 2 * window)): a start window and an end window to compare")
        }
        guard maxGrowth >= 0, maxGrowth <= 1000 else { throw ValidationError("--max-growth must be in [0, 1000] %") }
    }

    func run() async throws {
        guard let binary = binaryPath ?? SiblingExecutable.path("percbridge") else {
            throw BenchFailure("no percbridge beside \(SiblingExecutable.current): build it (swift build -c release) or give --binary PATH")
        }
        let s = settings
        let minutes = (Double(s.frames) / s.rate + 10) / 60
        print("soak bench: \(binary) serve, fixed clock at \(Int(s.rate)) Hz, \(s.frames) frames (about \(String(format: "%.1f", minutes)) min), "
              + "warm-up \(s.warmup), windows of \(s.window); \(s.percs) PERCs at \(Int(s.percRate)) Hz, \(s.fingers) fingers, "
              + "\(s.apps) apps coming and going, 1 drawing app, a D-Bus control client; "
              + "\(ProcessInfo.processInfo.activeProcessorCount) cores, load \(String(format: "%.1f", BenchProc.load1()))")
        let outcome = try await SoakRunner(binary: binary, settings: s).run(started: { tid, scheduling in
            print("serve's frame thread: tid \(tid), \(scheduling); the churn starts, then frame 0")
            print(SoakReport.header())
            fflush(nil)
        }, progress: { window in
            print(SoakReport.line(window, percs: s.percs))
            fflush(nil)  // progress as it happens, also into a pipe
        })
        print(SoakReport.legend)
        let report = SoakReport(binary: binary, settings: s, outcome: outcome, maxGrowth: maxGrowth)
        report.print(json: json)
        fflush(nil)  // the JSON line out before the error's message goes to stderr
        if let failure = report.failure { throw BenchFailure(failure) }
    }
}
