// `percbridge bench soak` scaled down through the CLI (figures there and sane, serve ended cleanly), its options refused
// with what is allowed, and its verdict on windows made up here.
import Foundation
import Testing
@testable import PercBench
import PercTestSupport

@Suite(.serialized) struct SoakBenchTests {
    /// 3,000 frames at 500 frames/s (the debug build's serve keeps that pace), 3 PERCs, 4
    /// apps: every window has frames, frame-thread and process CPU, RSS; the churn ran; serve
    /// ended cleanly. Never how fast: `--max-growth 1000` leaves the verdict to a release run.
    @Test func scaledDownSoakPrintsSaneFigures() async throws {
        let run = try await offPool {
            try CLI.run(["bench", "soak", "--frames", "3000", "--warmup", "1000", "--window", "1000", "--rate", "500",
                         "--percs", "3", "--fingers", "2", "--apps", "4", "--max-growth", "1000", "--json"])
        }
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("frame thread CPU µs/frame"), "the start/end table: \(run.stdout)")
        let line = try #require(run.stdout.split(separator: "\n").last { $0.hasPrefix("{") }, "no JSON line: \(run.stdout)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let windows = try #require(report["windows"] as? [[String: Any]])
        #expect(windows.map { $0["warmup"] as? Bool } == [true, false, false], "the warm-up and two measured windows: \(windows)")
        for w in windows {
            let name = "window \(w["window"] ?? "?")"
            // A window ends at the first sample past its last frame, so the next one may be a little short.
            #expect(w["frames"] as? Int ?? 0 > 500, "\(name): serve counted about a window of frames")
            #expect(w["frame_thread_us_per_frame"] as? Double ?? 0 > 0, "\(name): the frame thread's CPU was read")
            #expect(w["process_us_per_frame"] as? Double ?? 0 >= w["frame_thread_us_per_frame"] as? Double ?? .infinity,
                    "\(name): the process's CPU includes its frame thread's")
            #expect(w["rss_mib"] as? Double ?? 0 > 0, "\(name): serve's RSS was read")
            #expect(w["links_up"] as? Int ?? 0 >= 2, "\(name): the links up, but for one the bench may have just dropped")
            #expect(w["tuio_frames"] as? Int ?? 0 > 0, "\(name): serve's TUIO output arrived")
        }
        #expect(windows.last?["last_frame"] as? Int ?? 0 >= 3000, "the run went to --frames")
        #expect(report["serve_exited_cleanly"] as? Bool == true, "serve ended cleanly on SIGTERM: \(report["serve_exit"] ?? "?")")
        #expect(report["passed"] as? Bool == true, "\(report["failure"] ?? "?")")
        let start = try #require(report["start"] as? [String: Any])
        #expect(start["windows"] as? [Int] == [1] && (report["end"] as? [String: Any])?["windows"] as? [Int] == [2],
                "two measured windows: start and end are one window each")
        let churn = try #require(report["churn"] as? [String: Int])
        #expect(churn["apps_opened"] ?? 0 >= 1, "apps came and went: \(churn)")
        #expect(churn["lifts"] ?? 0 >= 1 && churn["moves"] ?? 0 >= 1, "PERCs were lifted and moved: \(churn)")
        #expect(churn["control_calls"] ?? 0 >= 1 && churn["control_failures"] == 0, "the control API answered: \(churn)")
        #expect(churn["emulator_call_failures"] == 0 && churn["app_errors"] == 0, "nothing refused: \(churn)")
    }

    @Test func badOptionsSayWhatIsAllowed() throws {
        let cases: [([String], String)] = [
            (["--frames", "0"], "--frames must be 1…1,000,000,000"),
            (["--frames", "50000"], "--frames must be at least --warmup + 2 × --window (70000)"),
            (["--rate", "2000"], "--rate must be in [10, 1000] frames/s"),
            (["--apps", "100"], "--apps must be 0…60"),
            (["--window", "10"], "--window must be at least 100 frames"),
            (["--max-growth=-1"], "--max-growth must be in [0, 1000] %"),
            (["--binary", "/nonexistent/percbridge"], "--binary /nonexistent/percbridge is not an executable file"),
        ]
        for (arguments, message) in cases {
            let run = try CLI.run(["bench", "soak"] + arguments)
            #expect(run.status != 0 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
    }

    @Test func windowsEndEveryWindowAfterTheWarmupAndTheRemainderJoinsTheLast() {
        let s = SoakSettings(frames: 500_000, percs: 4, fingers: 6, apps: 40, rate: 1000, window: 25_000, warmup: 20_000, percRate: 30)
        #expect(s.cuts.first == 20_000 && s.cuts.dropFirst().first == 45_000)
        #expect(s.cuts.suffix(2) == [470_000, 500_000], "the last window takes the 5,000 left over")
        var none = s
        none.warmup = 0
        none.frames = 50_000
        #expect(none.cuts == [25_000, 50_000], "no warm-up window")
    }

    /// A made-up run whose frame thread costs `micros` µs per frame in each window.
    func outcome(_ micros: [Double], rssMiB: [Double]) -> SoakOutcome {
        var samples = [SoakSample(time: 0, frames: 0, frameThreadCPU: 0, processCPU: 0, rssKiB: 1, heapBytes: 0, linksUp: 4, apps: 40, churn: SoakChurn())]
        for (i, m) in micros.enumerated() {
            var s = samples.last!
            s.time += 10
            s.frames += 10_000
            s.frameThreadCPU += m * 10_000 / 1e6
            s.processCPU += 2 * m * 10_000 / 1e6
            s.rssKiB = Int(rssMiB[i] * 1024)
            samples.append(s)
        }
        var o = SoakOutcome()
        o.windows = zip(samples, samples.dropFirst()).enumerated().map { i, pair in
            SoakWindow(number: i, from: pair.0, to: pair.1, base: 0, tuio: .init())
        }
        o.serveExit = "exit status 0"
        o.serveExitedCleanly = true
        return o
    }

    func report(_ o: SoakOutcome) -> SoakReport {
        SoakReport(binary: "percbridge", settings: SoakSettings(frames: 40_000, percs: 4, fingers: 6, apps: 40, rate: 1000, window: 10_000,
                                                                warmup: 10_000, percRate: 30),
                   outcome: o, maxGrowth: 10)
    }

    @Test func aFrameThatCostsMoreAtTheEndFailsWithBothFigures() throws {
        // The warm-up's 500 µs does not count: start is window 1.
        let grew = report(outcome([500, 100, 130, 160], rssMiB: [50, 50, 50, 50]))
        let failure = try #require(grew.failure)
        #expect(failure.contains("frame thread's CPU per frame grew 1.60x (100.0 → 160.0 µs)"), "\(failure)")
        #expect(failure.contains("from window 1, frames 10,000–20,000, to window 3, frames 30,000–40,000"), "\(failure)")
        let steady = report(outcome([500, 100, 104, 109], rssMiB: [40, 50, 52, 54]))
        #expect(steady.failure == nil, "within 10 %: \(steady.failure ?? "")")
    }

    /// With six windows or more, start and end are medians of three: one window that shared
    /// the cores with a compile does not fail the run, a cost that grows in all of them does.
    @Test func oneSlowWindowAtTheEndIsNotGrowth() throws {
        let flat = Array(repeating: 50.0, count: 7)
        let outlier = report(outcome([500, 100, 104, 98, 102, 101, 135], rssMiB: flat))
        #expect(outlier.failure == nil, "\(outlier.failure ?? "")")
        #expect(outlier.start?.label == "windows 1–3 (medians)" && outlier.end?.label == "windows 4–6 (medians)")
        let growing = try #require(report(outcome([500, 100, 110, 120, 130, 140, 150], rssMiB: flat)).failure)
        #expect(growing.contains("grew 1.27x (110.0 → 140.0 µs) from windows 1–3 (medians)"), "\(growing)")
    }

    @Test func memoryThatGrowsFailsToo() throws {
        let r = report(outcome([100, 100, 100, 100], rssMiB: [50, 50, 55, 60]))
        let failure = try #require(r.failure)
        #expect(failure.contains("serve's RSS grew 1.20x (50.0 → 60.0 MiB)") && !failure.contains("CPU"), "\(failure)")
    }

    @Test func serveDyingIsTheFailureWhateverTheFigures() throws {
        var o = outcome([100, 100, 100], rssMiB: [50, 50, 50])
        o.failure = "serve ended during the run, after about 30000 frames of the soak (31 s): killed by signal 11 (Segmentation fault)"
        #expect(report(o).failure?.contains("killed by signal 11") == true)
    }
}
