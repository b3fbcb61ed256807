// Turns a diagnosis into recommended settings: the surface's time window, the stationary-failure limit, the links' interval and the display's refresh.
import Foundation
import PercRuntime

/// Turns a diagnosis into suggested settings: the surface's time window, the stationary-failure
/// limit, the links' connection interval and the display's refresh rate.
public enum SuggestionRules {
    static let windowKey = "recognition.time_window_ms"
    static let failuresKey = "light_checks.max_failed_stationary"
    static let intervalKey = "light_checks.ble_interval_ms"
    static let refreshKey = "light_checks.display_refresh_hz"

    /// Settings the report has enough evidence for. `currentWindowMs`, `currentFailures`,
    /// `currentIntervalMs` and `currentRefreshHz` are the values in effect (config or defaults).
    public static func suggest(_ r: DiagnoseReport, settings: DiagnoseSettings, currentWindowMs: Int, currentFailures: Int,
                               currentIntervalMs: Int = 30, currentRefreshHz: Int = 60) -> [SettingSuggestion] {
        var out: [SettingSuggestion] = []
        // The window is per surface: pool every PERC's onsets.
        let onsets = SignedDistribution(r.tangibles.flatMap(\.field.onsetOffsetsMs.samples))
        let placements = r.tangibles.reduce(0) { $0 + $1.field.onCount }
        if onsets.count >= settings.minOnsetsForSuggestion, let q = onsets.magnitudeQuantile(0.99), let m = onsets.max, let lo = onsets.min {
            let frameMs = settings.framePeriod * 1000
            var value = Int(((q + frameMs) / 10).rounded(.up)) * 10
            // The onsets are those of the traces the engine assigned under the window in effect:
            // a replay under another window assigns others, and the 99% point of a few dozen
            // onsets moves by some frames. Within `windowDeadbandMs` the current window stays,
            // so applying the suggestion and diagnosing again changes nothing.
            if abs(value - currentWindowMs) <= settings.windowDeadbandMs { value = currentWindowMs }
            out.append(SettingSuggestion(key: windowKey, value: value.clamped(to: bounds(windowKey)), current: currentWindowMs, evidence:
                "\(onsets.count) marker traces in \(placements) placements began \(Int(lo.rounded())) to +\(Int(m.rounded())) ms around field-on; "
                + "99% within ±\(Int(q.rounded(.up))) ms, plus one frame (\(String(format: "%.1f", frameMs)) ms) because the engine compares frame times"))
        }
        let answered = r.tangibles.reduce(0) { $0 + $1.light.answered }
        let misses = r.tangibles.reduce(0) { $0 + $1.light.misses }
        let decided = answered + misses
        if decided >= settings.minExposuresForSuggestion {
            // A rate of 0 seen in n trials is still up to ~1/n: never plan for a perfect sensor.
            let p = max(Double(misses) / Double(decided), 1 / Double(decided + 1))
            let checksPerHour = 3600 / settings.stationaryInterval
            let most = bounds(failuresKey).upperBound
            var k = 1
            while k < most && pow(p, Double(k)) * checksPerHour > 0.01 { k += 1 }
            let value = max(2, k)
            out.append(SettingSuggestion(key: failuresKey, value: value, current: currentFailures, evidence:
                "light sensors missed \(misses) of \(decided) colour changes (\(String(format: "%.1f", Double(misses) / Double(decided) * 100))%); "
                + "at \(Int(checksPerHour)) stationary checks per resting hour, \(value) misses in a row by chance alone happen "
                + String(format: "%.3g", pow(p, Double(value)) * checksPerHour) + " times per hour"))
        }
        // A notification waits up to one connection interval for its connection event: the
        // spread of the delays above the fastest one (PERC GATT v1 device time) is the links'
        // interval, which sets how long a silent light-check round lasts (docs/lightcheck.md).
        let links = r.tangibles.compactMap(\.link.latencyAboveFastest)
        let timed = links.reduce(0) { $0 + $1.count }
        if timed >= settings.minNotificationsForSuggestion, let worst = links.map(\.p99Ms).max() {
            var value = Int(worst.rounded(.up))
            if abs(value - currentIntervalMs) <= settings.intervalDeadbandMs { value = currentIntervalMs }
            out.append(SettingSuggestion(key: intervalKey, value: value.clamped(to: bounds(intervalKey)), current: currentIntervalMs, evidence:
                "\(timed) notifications of \(links.count) PERC\(links.count == 1 ? "" : "s") came up to \(String(format: "%.1f", worst)) ms (99%) "
                + "later than the fastest: the wait for the links' connection interval; a light-check round with no answer "
                + "lasts 4 display frames + this + 13 ms"))
        }
        // Apps report the refresh a frame was shown at: the gaps are whole periods.
        if let d = r.display, let hz = d.refreshHz {
            var value = Int(hz.rounded())
            if abs(hz - Double(currentRefreshHz)) <= DisplayAccumulator.deadbandHz { value = currentRefreshHz }
            out.append(SettingSuggestion(key: refreshKey, value: value.clamped(to: bounds(refreshKey)), current: currentRefreshHz, evidence:
                "\(d.gaps) gaps between presented overlays, \(Int((d.onWholePeriods * 100).rounded()))% of them whole periods of "
                + "\(String(format: "%.2f", d.periodMs ?? 0)) ms: a light sensor answers 1–4 of them after a patch shows"))
        }
        return out
    }

    /// The values the config file takes for `key` (ConfigSchema), so a suggestion is never one
    /// `diagnose --apply` would have to refuse.
    private static func bounds(_ key: String) -> ClosedRange<Int> {
        guard let b = ConfigSchema.key(key)?.value.bounds else { preconditionFailure("\(key) is not a number key of ConfigSchema") }
        return Int(b.lowerBound.rounded(.up))...Int(b.upperBound.rounded(.down))
    }
}

private extension Int {
    func clamped(to range: ClosedRange<Int>) -> Int { Swift.min(range.upperBound, Swift.max(range.lowerBound, self)) }
}
