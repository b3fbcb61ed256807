// `bench service`: one measured run of `serve` (what it is given, and what was measured).
import Foundation
import Histogram

/// What one phase runs: a fresh emulator and a fresh `serve` each time.
struct BenchPhase: Sendable {
    var name: String
    var percs: Int
    var fingers: Int
    var clients: Int
    var stalled: Bool
    var latency: Bool
    /// `[clock] mode` of this phase's serve: "events" or "fixed".
    var clock = "events"
    /// A probe finger on a second TUIO source, timed to TUIO and an app.
    var touchProbe = false
    /// A umockdev touchscreen as an evdev input, its probe finger timed to TUIO and an app.
    var evdev = false
    /// The burst phases: how the PERCs' streams are phased (serve records; one app times frames).
    var burst: BenchBurst.Pattern? = nil
    /// serve runs with --record (the latency, evdev and burst phases read it).
    var records: Bool { latency || evdev || burst != nil }
}

/// What one phase measured (all over the measuring window of `seconds`).
struct BenchPhaseResult: Sendable {
    var phase: BenchPhase
    var seconds: Double = 0
    var loadBefore = 0.0
    var loadAfter = 0.0
    var linksUp = 0
    /// PERCs whose tangible was in serve's TUIO output after placing them.
    var placed = 0
    var tuio = BenchTUIOWatcher.Counters()
    var serveCPU = 0.0
    var emulatorCPU = 0.0
    var benchCPU = 0.0
    var rssStartKiB = 0
    var rssMaxKiB = 0
    var rssEndKiB = 0
    var notificationsPerSecond = 0.0
    var notificationsLost = 0
    var framesCounted = 0
    var appFramesDropped = 0
    var appClients = 0
    var touchDatagrams = 0
    var clients: BenchWSClients.Stats?
    var latency: BenchLatency.Result?
    /// Touch → TUIO / app latency of the probe finger (latency phase: TUIO in; evdev phase).
    var touch: BenchTouchLatency?
    /// The burst phases: notification → app.
    var burst: BenchBurst.Result?
    var exitStatus: Int32 = 0

    /// serve's counters over the window, from its /metrics at the window's start and end.
    mutating func takeMetrics(before: [String: Double], after: [String: Double]) {
        func delta(_ name: String) -> Double { (after[name] ?? 0) - (before[name] ?? 0) }
        notificationsPerSecond = seconds > 0 ? delta("percbridge_notifications_total") / seconds : 0
        notificationsLost = Int(delta("percbridge_notifications_lost_total"))
        framesCounted = Int(delta("percbridge_frames_total"))
        appFramesDropped = Int(delta("percbridge_app_frames_dropped_total"))
        appClients = Int(after["percbridge_app_clients"] ?? 0)
    }

    /// CPU seconds per wall second as % of one core.
    static func percent(_ cpu: Double, _ seconds: Double) -> Double { seconds > 0 ? cpu / seconds * 100 : 0 }
    var servePercent: Double { Self.percent(serveCPU, seconds) }
    var load: String { String(format: "%.1f→%.1f", loadBefore, loadAfter) }

    /// Frames each reading client received per second: (min, median).
    var clientFPS: (min: Double, median: Double)? {
        guard let c = clients, !c.framesPerClient.isEmpty, seconds > 0 else { return nil }
        let readers = phase.clients - (phase.stalled ? 1 : 0)
        var rates = c.framesPerClient.values.map { Double($0) / seconds }
        rates += Array(repeating: 0, count: max(0, readers - rates.count))  // a reader that got nothing
        rates.sort()
        return (rates[0], rates[rates.count / 2])
    }
}
