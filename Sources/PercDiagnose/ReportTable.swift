// The readable text form of a diagnosis (the default output of `percbridge diagnose`).
import Foundation

/// Renders a `DiagnoseReport` as aligned lines, one block per tangible.
public enum ReportTable {
    public static func render(_ r: DiagnoseReport) -> String {
        var out = "PercBridge diagnosis of \(r.source): \(fmt(r.duration, 1)) s, \(r.frames) frames"
        if r.badLines > 0 { out += ", \(r.badLines) unreadable lines skipped" }
        out += "\n"
        for n in r.notes { out += "note: \(n)\n" }
        if let d = r.display { out += display(d) + "\n" }
        if r.tangibles.isEmpty { out += "\nNo tangibles are defined in this data: nothing to diagnose.\n" }
        for t in r.tangibles {
            out += "\n\(t.name) (id \(t.id), \(t.kind.rawValue)\(t.profile.map { ", \($0.rawValue)" } ?? ""))\n"
            for (label, lines) in sections(t) {
                for (i, l) in lines.enumerated() { out += "  \((i == 0 ? label : "").padding(toLength: 12, withPad: " ", startingAt: 0)) \(l)\n" }
            }
        }
        return out
    }

    static func display(_ d: DisplayFigures) -> String {
        let share = "\(Int((d.onWholePeriods * 100).rounded()))% on whole periods"
        guard let hz = d.refreshHz, let ms = d.periodMs else {
            if d.gaps < DisplayAccumulator.minGaps {
                return "display: \(d.gaps) gaps between presented reports, \(DisplayAccumulator.minGaps) needed: no refresh rate measured yet"
            }
            return "display: presented reports do not follow one refresh period (\(d.gaps) gaps, \(share)): no refresh rate measured"
        }
        return "display: overlays presented on a \(fmt(hz, 1)) Hz refresh (\(fmt(ms, 2)) ms; \(d.gaps) gaps between reports, \(share))"
    }

    /// A PUC has no link or sensors: only its recognition figures.
    static func sections(_ t: TangibleDiagnosis) -> [(String, [String])] {
        let rec = ("recognition", recognition(t.recognition))
        guard t.kind == .perc else { return [rec] }
        return [("link", link(t.link)), ("field", field(t.field)), ("light", light(t.light)), rec]
    }

    static func link(_ l: LinkFigures) -> [String] {
        var a = "\(l.connects) connect\(l.connects == 1 ? "" : "s"), \(l.reconnects) reconnect\(l.reconnects == 1 ? "" : "s"), "
            + "\(l.notifications) notifications" + (l.notificationsPerSecond.map { " (\(fmt($0, 2))/s over \(fmt(l.connectedSeconds, 1)) s connected)" } ?? "")
        if let lost = l.lost { a += ", lost \(lost) (\(pct(l.lossRate)))" }
        var lines = [a]
        if let lat = l.latencyAboveFastest {
            lines.append("delay above the fastest notification \(latency(lat)); clock drift " + (l.clockDriftPPM.map { fmt($0, 1, sign: true) + " ppm" } ?? "not measured (needs 60 s)"))
        }
        if let note = l.note { lines.append(note) }
        lines.append("battery \(l.batteryLast.map { "\($0)%" } ?? "not reported")\(l.batteryMin.map { $0 != l.batteryLast ? " (min \($0)%)" : "" } ?? "")")
        lines.append(rssi(l.rssi))
        return lines
    }

    static func rssi(_ r: RSSIFigures) -> String {
        guard let last = r.lastDBm, let lo = r.minDBm, let mid = r.medianDBm, let hi = r.maxDBm else { return "RSSI: \(r.note)" }
        let median = mid == mid.rounded() ? String(Int(mid)) : fmt(mid, 1)
        return "RSSI last \(last) dBm, min \(lo) / median \(median) / max \(hi) dBm (n=\(r.count)), "
            + "last seen at \(fmt(r.lastSeenAt ?? 0, 1)) s, \(fmt(r.lastSeenBeforeEnd ?? 0, 1)) s before the latest frame; \(r.note)"
    }

    static func field(_ f: FieldFigures) -> [String] {
        var lines = ["\(f.onCount) on, \(f.offCount) off"]
        let d = f.onsetOffsetsMs
        if let lo = d.min, let hi = d.max {
            lines.append("marker traces began \(fmt(lo, 0, sign: true)) to \(fmt(hi, 0, sign: true)) ms around field-on "
                         + "(|Δ| p50 \(fmt(d.magnitudeQuantile(0.5) ?? 0, 0)) ms, p99 \(fmt(d.magnitudeQuantile(0.99) ?? 0, 0)) ms, n=\(d.count))")
            lines.append("\(pct(f.insideConfiguredWindow)) inside the configured ±\(fmt(f.configuredWindowMs, 0)) ms window; "
                         + (f.suggestedWindowMs.map { "suggested window \(fmt($0, 0)) ms" } ?? "too few onsets to suggest a window"))
        } else {
            lines.append("no marker trace onsets measured (no placements with field-on notifications)")
        }
        return lines
    }

    static func light(_ l: LightFigures) -> [String] {
        var lines = ["\(l.checks) checks: \(l.confirmed) confirmed, \(l.rejected) rejected, \(l.inconclusive) inconclusive (\(l.stationaryChecks) stationary)"]
        lines.append("\(l.exposures) colour changes under the sensor: \(l.answered) answered, \(l.misses) missed (\(pct(l.missRate))), "
                     + "\(l.cutShort) cut short, \(l.lostOnLink) with notifications lost")
        lines.append("response latency " + (l.responseLatency.map(latency) ?? "not measured (no answered colour changes)"))
        lines.append("spontaneous flips \(l.spontaneousFlips) in \(fmt(l.quietHours * 60, 1)) quiet minutes"
                     + (l.flipsPerHour.map { " = \(fmt($0, 1))/h" } ?? ""))
        return lines
    }

    static func recognition(_ r: RecognitionFigures) -> [String] {
        let t = r.timeToRecogniseMs
        return [
            "recognised \(r.recognitions)×" + (t.count > 0 ? ", field-on to tracked p50 \(fmt(t.quantile(0.5) ?? 0, 0)) ms, p90 \(fmt(t.quantile(0.9) ?? 0, 0)) ms, max \(fmt(t.max ?? 0, 0)) ms" : ""),
            "guesses \(r.guesses): \(r.guessesStood) stood, \(r.guessesOverturned) overturned; deformation drops \(r.deformationDrops) (\(r.ghostTouchDrops) ghost touches)",
            "resting \(fmt(r.restingSeconds, 1)) s, \(r.stationaryCheckFailures) stationary-check failures, back to searching \(r.restingLost)×",
        ]
    }

    public static func latency(_ l: LatencyFigures) -> String {
        "p50 \(fmt(l.p50Ms, 1)) ms, p90 \(fmt(l.p90Ms, 1)) ms, p99 \(fmt(l.p99Ms, 1)) ms, max \(fmt(l.maxMs, 1)) ms (n=\(l.count))"
    }

    static func fmt(_ v: Double, _ digits: Int, sign: Bool = false) -> String {
        String(format: "%\(sign ? "+" : "").\(digits)f", v)
    }

    static func pct(_ v: Double?) -> String { v.map { String(format: "%.1f%%", $0 * 100) } ?? "n/a" }
}
