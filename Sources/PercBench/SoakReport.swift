// `bench soak`: the progress line of each window, the start-against-end summary, the verdict and the JSON line.
import Foundation

/// Start is the first windows after the warm-up, end the last ones. A frame that costs more at
/// the end than at the start, with the same churn around it, is work that grows with time.
struct SoakReport {
    let binary: String
    let settings: SoakSettings
    let outcome: SoakOutcome
    /// Allowed end/start growth, %.
    let maxGrowth: Double

    /// Start and end: the median of up to three windows each. The machine is shared, and one
    /// window that ran beside a compile costs 20 % more on a healthy serve (measured); a cost
    /// that grows with time moves all three.
    struct Span {
        var windows: [SoakWindow]

        var label: String {
            let a = windows.first!.label, b = windows.last!.label
            return windows.count == 1 ? "window \(a)" : "windows \(a)–\(b) (medians)"
        }
        var frames: String { "frames \(n(windows.first!.firstFrame))–\(n(windows.last!.lastFrame))" }
        var frameThreadMicros: Double { median(\.frameThreadMicros) }
        var processMicros: Double { median(\.processMicros) }
        var rssMiB: Double { median(\.rssMiB) }
        var heapMiB: Double { median(\.heapMiB) }

        private func median(_ figure: KeyPath<SoakWindow, Double>) -> Double {
            let v = windows.map { $0[keyPath: figure] }.sorted()
            return v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2
        }
    }

    var measured: [SoakWindow] { outcome.windows.filter { !$0.isWarmup } }
    /// Windows per span: three, fewer when the run has fewer than six (start and end never share one).
    var spanWindows: Int { min(3, measured.count / 2) }
    var start: Span? { spanWindows > 0 ? Span(windows: Array(measured.prefix(spanWindows))) : nil }
    /// nil with fewer than two measured windows: nothing to compare.
    var end: Span? { spanWindows > 0 ? Span(windows: Array(measured.suffix(spanWindows))) : nil }
    var limit: Double { 1 + maxGrowth / 100 }

    struct Ratios {
        var frameThread: Double
        var process: Double
        var rss: Double
    }

    var ratios: Ratios? {
        guard let start, let end else { return nil }
        func r(_ a: Double, _ b: Double) -> Double { a > 0 ? b / a : .infinity }
        return Ratios(frameThread: r(start.frameThreadMicros, end.frameThreadMicros), process: r(start.processMicros, end.processMicros),
                      rss: r(start.rssMiB, end.rssMiB))
    }

    /// Why the soak failed (the growth, serve's own failure, the drawing app cut off), with
    /// the end of serve's log when serve failed; nil when it passed.
    var failure: String? {
        var reasons: [String] = []
        if let ratios, let start, let end {
            var grew: [String] = []
            if ratios.frameThread > limit {
                grew.append("the frame thread's CPU per frame grew \(x(ratios.frameThread)) (\(f(start.frameThreadMicros)) → \(f(end.frameThreadMicros)) µs)")
            }
            if ratios.rss > limit {
                grew.append("serve's RSS grew \(x(ratios.rss)) (\(f(start.rssMiB)) → \(f(end.rssMiB)) MiB)")
            }
            if !grew.isEmpty {
                reasons.append(grew.joined(separator: " and ") + " from \(start.label), \(start.frames), to \(end.label), \(end.frames), "
                               + "more than the \(x(limit)) --max-growth \(f(maxGrowth, 0)) allows: serve does more work per frame, or "
                               + "holds more memory, the longer it runs")
            }
        } else if outcome.failure == nil {
            reasons.append("fewer than two measured windows: nothing to compare (give more --frames, or a smaller --window or --warmup)")
        }
        if let f = outcome.failure { reasons.append(f) }
        if let closed = total.counts["drawing_app_closed"], closed > 0 {
            reasons.append("serve closed the drawing app's connection \(closed) time(s) although it answers pings (PERCBRIDGE_KEEP_TMP=1 "
                           + "keeps serve's log): no presented reports until it was back")
        }
        guard !reasons.isEmpty else { return nil }
        return reasons.joined(separator: "; ") + (outcome.serveLogTail.map { "\nthe end of serve's log:\n" + $0 } ?? "")
    }

    // MARK: Printing

    static func header() -> String {
        pad("window", 22) + lpad("frames", 10) + lpad("frames/s", 10) + lpad("frame thread µs/frame", 23) + lpad("process µs/frame", 18)
            + lpad("RSS MiB", 9) + lpad("heap MiB", 10) + lpad("links", 7) + lpad("apps", 6) + lpad("tangibles", 11) + "  churn in the window"
    }

    /// One window: frames of the soak so far, its rate, what a frame cost, RSS at its end.
    static func line(_ w: SoakWindow, percs: Int) -> String {
        pad(w.label, 22) + lpad(n(w.lastFrame), 10) + lpad(f(w.framesPerSecond), 10) + lpad(f(w.frameThreadMicros), 23)
            + lpad(f(w.processMicros), 18) + lpad(f(w.rssMiB), 9) + lpad(f(w.heapMiB), 10) + lpad("\(w.to.linksUp)/\(percs)", 7) + lpad("\(w.to.apps)", 6)
            + lpad("\(f(w.tuio.meanObjects))/\(percs)", 11) + "  " + w.churn.summary
    }

    static let legend = """
        frames: the soak's frames so far (serve's percbridge_frames_total from the moment all the churn ran); frame thread: \
        CPU time of serve's frame clock thread per frame (/proc/<pid>/task/<tid>/stat); process: all of serve's \
        threads; RSS: VmRSS at the window's end; heap: serve's percbridge_heap_bytes_in_use (what malloc handed out and did \
        not get back: RSS growing without it is the allocator's, not serve's); links, apps: serve's /metrics at the window's end; tangibles: mean alive \
        in serve's TUIO output / PERCs.
        """

    func print(json: Bool) {
        Swift.print("")
        if let start, let end, let ratios {
            Swift.print("start: \(start.label), \(start.frames); end: \(end.label), \(end.frames)")
            Swift.print(pad("", 34) + lpad("start", 10) + lpad("end", 10) + lpad("end/start", 11))
            Swift.print(pad("frame thread CPU µs/frame", 34) + lpad(f(start.frameThreadMicros), 10) + lpad(f(end.frameThreadMicros), 10)
                        + lpad(x(ratios.frameThread), 11))
            Swift.print(pad("process CPU µs/frame", 34) + lpad(f(start.processMicros), 10) + lpad(f(end.processMicros), 10)
                        + lpad(x(ratios.process), 11))
            Swift.print(pad("RSS MiB", 34) + lpad(f(start.rssMiB), 10) + lpad(f(end.rssMiB), 10) + lpad(x(ratios.rss), 11))
            Swift.print(pad("heap in use MiB", 34) + lpad(f(start.heapMiB), 10) + lpad(f(end.heapMiB), 10)
                        + lpad(x(start.heapMiB > 0 ? end.heapMiB / start.heapMiB : .nan), 11))
        }
        if let w = outcome.windows.last {
            Swift.print("\(n(w.lastFrame)) frames in \(f(outcome.seconds, 0)) s; serve: \(outcome.serveExit)")
        }
        Swift.print("churn over the whole run: " + total.summary)
        if let failure {
            Swift.print("FAILED: " + (failure.split(separator: "\n").first.map(String.init) ?? failure))
        } else if let ratios {
            Swift.print("passed: frame-thread CPU per frame \(x(ratios.frameThread)) and RSS \(x(ratios.rss)) of the start, "
                        + "within \(x(limit)) (--max-growth \(f(maxGrowth, 0)))")
        }
        if json { Swift.print(jsonLine()) }
    }

    var total: SoakChurn {
        guard let first = outcome.windows.first, let last = outcome.windows.last else { return SoakChurn() }
        return last.to.churn - first.from.churn
    }

    private func jsonLine() -> String {
        func window(_ w: SoakWindow) -> [String: Any] {
            ["window": w.number, "warmup": w.isWarmup, "cut_short": w.cutShort, "first_frame": w.firstFrame, "last_frame": w.lastFrame,
             "frames": w.frames, "seconds": w.seconds, "frames_per_second": w.framesPerSecond,
             "frame_thread_us_per_frame": w.frameThreadMicros, "process_us_per_frame": w.processMicros, "rss_mib": w.rssMiB, "heap_mib": w.heapMiB,
             "links_up": w.to.linksUp, "apps_connected": w.to.apps, "mean_tangibles": w.tuio.meanObjects,
             "tuio_frames": w.tuio.frames, "tuio_gaps": w.tuio.gaps, "churn": w.churn.counts]
        }
        var out: [String: Any] = [
            "binary": binary, "frames": settings.frames, "rate_hz": settings.rate, "percs": settings.percs, "fingers": settings.fingers,
            "apps": settings.apps, "window": settings.window, "warmup": settings.warmup, "max_growth_percent": maxGrowth,
            "windows": outcome.windows.map(window), "seconds": outcome.seconds, "frame_thread": Int(outcome.frameThread),
            "frame_thread_scheduling": outcome.frameThreadScheduling, "serve_exit": outcome.serveExit,
            "serve_exited_cleanly": outcome.serveExitedCleanly, "churn": total.counts,
            "passed": failure == nil, "failure": failure ?? NSNull(),
        ]
        func span(_ sp: Span) -> [String: Any] {
            ["windows": sp.windows.map(\.number), "first_frame": sp.windows.first!.firstFrame, "last_frame": sp.windows.last!.lastFrame,
             "frame_thread_us_per_frame": sp.frameThreadMicros, "process_us_per_frame": sp.processMicros, "rss_mib": sp.rssMiB, "heap_mib": sp.heapMiB]
        }
        if let start, let end, let ratios {
            out["start"] = span(start)
            out["end"] = span(end)
            // A zero start (no CPU tick in the window) makes a ratio infinite, which JSON cannot hold.
            func finite(_ v: Double) -> Any { v.isFinite ? v : NSNull() }
            out["ratios"] = ["frame_thread_us_per_frame": finite(ratios.frameThread), "process_us_per_frame": finite(ratios.process),
                             "rss": finite(ratios.rss)]
        }
        let data = (try? JSONSerialization.data(withJSONObject: out, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

private func f(_ v: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", v) }
private func x(_ v: Double) -> String { String(format: "%.2fx", v) }
private func n(_ v: Int) -> String { SoakReport.grouped(v) }

extension SoakReport {
    /// 125000 → "125,000".
    static func grouped(_ v: Int) -> String {
        let digits = String(v.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (v < 0 ? "-" : "") + out
    }
}
private func pad(_ s: String, _ w: Int) -> String { s.count >= w ? s : s + String(repeating: " ", count: w - s.count) }
private func lpad(_ s: String, _ w: Int) -> String { s.count >= w ? s : String(repeating: " ", count: w - s.count) + s }
