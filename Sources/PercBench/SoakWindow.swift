// `bench soak`: serve read from outside at a moment (frames, the frame thread's and the process's CPU, RSS), and one window between two readings.
import Foundation
import MTKTangibles
import PercSystem

/// The bench's churn so far, by name (counters only grow): what happened in a window is the
/// difference of two of these.
struct SoakChurn: Sendable {
    /// Names in print order, with how a window's line shows them (the JSON has every count).
    static let names: [(key: String, label: String)] = [
        ("apps_opened", "apps +"), ("apps_closed", "-"), ("lifts", "lifts"), ("moves", "moves"),
        ("link_drops", "link drops"), ("overlays", "overlays"), ("presented", "presented"),
        ("tangible_signals", "TangibleChanged"), ("on_surface_changes", "TangiblesOnSurface"),
        ("control_calls", "Status/List"),
        ("apps_failed", "apps refused"), ("emulator_call_failures", "emulator calls failed"),
        ("app_errors", "errors to the drawing app"), ("drawing_app_closed", "drawing app closed by serve"),
        ("control_failures", "control calls failed"),
    ]
    /// Counted only when something went wrong: shown only when not zero.
    static let failures: Set<String> = ["apps_failed", "emulator_call_failures", "app_errors", "drawing_app_closed", "control_failures"]

    var counts: [String: Int] = [:]

    init(table: SoakTable.Counts, apps: SoakApps.Counts, drawing: SoakDrawingApp.Counts, control: SoakControlClient.Counts) {
        counts = [
            "apps_opened": apps.opened, "apps_closed": apps.closed, "apps_failed": apps.failed,
            "lifts": table.lifts, "moves": table.moves, "link_drops": table.linkDrops, "emulator_call_failures": table.failedCalls,
            "drawing_app_frames": drawing.frames, "overlays": drawing.overlays, "presented": drawing.presented, "app_errors": drawing.errors,
            "drawing_app_closed": drawing.closedByServe,
            "tangible_signals": control.tangibleSignals, "on_surface_changes": control.onSurfaceChanges,
            "control_calls": control.calls, "control_failures": control.failedCalls,
        ]
    }

    init(counts: [String: Int] = [:]) { self.counts = counts }

    static func - (a: SoakChurn, b: SoakChurn) -> SoakChurn {
        SoakChurn(counts: a.counts.merging(b.counts.mapValues { -$0 }, uniquingKeysWith: +))
    }

    /// "apps +31/-30, lifts 14, …" (failures only when there were some).
    var summary: String {
        var parts: [String] = []
        for (key, label) in Self.names {
            let n = counts[key] ?? 0
            if key == "apps_closed" { parts[parts.count - 1] += "/-\(n)"; continue }
            if Self.failures.contains(key), n == 0 { continue }
            parts.append(key == "apps_opened" ? "\(label)\(n)" : "\(label) \(n)")
        }
        return parts.joined(separator: ", ")
    }
}

/// serve at one moment, read from outside: the frame count from its `/metrics`, CPU times and
/// RSS from /proc.
struct SoakSample: Sendable {
    var time: Seconds
    /// `percbridge_frames_total`.
    var frames: Int
    var frameThreadCPU: Double
    var processCPU: Double
    var rssKiB: Int
    /// serve's `percbridge_heap_bytes_in_use` (0 from a serve without it).
    var heapBytes: Double
    var linksUp: Int
    var apps: Int
    var churn: SoakChurn

    /// nil when serve did not answer `/metrics` or its process or frame thread is gone.
    static func take(pid: Int32, frameThread: Int32, http: Int, churn: SoakChurn) async -> SoakSample? {
        let metrics = await BenchHTTP.metrics(port: http)
        guard let frames = metrics["percbridge_frames_total"],
              let thread = BenchProc.cpuSeconds(pid, thread: frameThread), let process = BenchProc.cpuSeconds(pid),
              let rss = BenchProc.rssKiB(pid) else { return nil }
        return SoakSample(time: MonotonicClock.now(), frames: Int(frames), frameThreadCPU: thread, processCPU: process, rssKiB: rss,
                          heapBytes: metrics["percbridge_heap_bytes_in_use"] ?? 0, linksUp: Int(metrics["percbridge_links_connected"] ?? 0), apps: Int(metrics["percbridge_app_clients"] ?? 0),
                          churn: churn)
    }
}

/// What serve did and cost between two samples.
struct SoakWindow: Sendable {
    /// 0: the warm-up; the measured windows count from 1.
    var number: Int
    var from: SoakSample
    var to: SoakSample
    /// serve's frame count when the whole churn ran (frame 0 of the soak).
    var base: Int
    /// serve's TUIO output received by the bench in this window.
    var tuio: BenchTUIOWatcher.Counters
    /// The run ended (serve died, fell behind) before the window's last frame.
    var cutShort = false

    var isWarmup: Bool { number == 0 }
    var label: String { (isWarmup ? "warm-up" : "\(number)") + (cutShort ? " (cut short)" : "") }
    var frames: Int { to.frames - from.frames }
    /// Frames of the soak at the window's start and end.
    var firstFrame: Int { from.frames - base }
    var lastFrame: Int { to.frames - base }
    var seconds: Double { to.time - from.time }
    var framesPerSecond: Double { seconds > 0 ? Double(frames) / seconds : 0 }
    /// CPU time of serve's frame thread per frame, µs (USER_HZ ticks: 10 ms, fine over a window).
    var frameThreadMicros: Double { perFrame(to.frameThreadCPU - from.frameThreadCPU) }
    /// CPU time of the whole serve process per frame, µs.
    var processMicros: Double { perFrame(to.processCPU - from.processCPU) }
    var rssMiB: Double { Double(to.rssKiB) / 1024 }
    var heapMiB: Double { to.heapBytes / 1_048_576 }
    var churn: SoakChurn { to.churn - from.churn }

    private func perFrame(_ seconds: Double) -> Double { frames > 0 ? seconds / Double(frames) * 1e6 : 0 }
}
