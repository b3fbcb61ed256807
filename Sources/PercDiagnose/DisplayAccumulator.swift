// The display's refresh period, from the times apps reported overlays presented.
import Foundation

/// What the presented reports say about the display: apps report the vertical blank a frame
/// was shown at (`percbridge overlay` with X11 Present, percbridge.js from
/// requestAnimationFrame), so the gaps between reports are whole refresh periods. A light
/// sensor answers 1–4 refreshes after a patch shows: the period sets how long a light-check
/// round waits for an answer (`light_checks.display_refresh_hz`).
public struct DisplayFigures: Codable, Hashable, Sendable {
    /// Gaps between consecutive presented reports that were analysed (up to 8 periods long).
    public var gaps: Int
    /// Share of them within 1 ms (or 6%) of a whole number of `periodMs`.
    public var onWholePeriods: Double
    /// The refresh period (ms) and rate, when the reports follow one (nil: too few gaps, or
    /// reports timed otherwise, e.g. an overlay without the Present extension).
    public var periodMs: Double?
    public var refreshHz: Double?
}

/// Collects the gaps between presented reports (bounded: the newest `capacity`).
struct DisplayAccumulator: Hashable, Sendable {
    /// What the measured refresh says against the one the light checks are told, when they
    /// differ by more than 1 Hz (nil otherwise, or when no rate is measured).
    static func mismatch(_ d: DisplayFigures?, told: Double) -> String? {
        guard let d, let hz = d.refreshHz, let ms = d.periodMs, abs(hz - told) > deadbandHz else { return nil }
        let measured = Int(hz.rounded())
        return String(format: "overlays are presented on a %.1f Hz refresh (%.2f ms, %d gaps between presented reports) but light_checks.display_refresh_hz is %g: ",
                      hz, ms, d.gaps, told)
            + "a light-check round with no answer waits 4 frames of \(Int(told.rounded())) Hz until a PERC's latency is learned; "
            + "set display_refresh_hz = \(measured) (percbridge diagnose --apply CONFIG writes it) and restart the service"
    }

    static let capacity = 4096
    /// Fewest gaps, and the least share on whole periods, for a period to be reported.
    static let minGaps = 50
    static let minShare = 0.8
    /// A measured rate this close to the configured one is the configured one.
    static let deadbandHz = 1.0

    private var gaps: [Double] = []
    private var nextSlot = 0
    private var lastReport: Double?
    /// Gaps taken since the start (the live service looks again every so many).
    private(set) var taken = 0

    /// An overlay was reported presented at `t` (service clock). Reports within 2 ms of the
    /// last are of one refresh (several overlays replaced within a frame).
    mutating func presented(at t: Double) {
        guard t.isFinite else { return }
        if let last = lastReport {
            let gap = t - last
            guard gap > 0.002 else { return }
            if gap < 0.25 { append(gap) }
        }
        lastReport = t
    }

    private mutating func append(_ gap: Double) {
        taken += 1
        if gaps.count < Self.capacity { gaps.append(gap) } else { gaps[nextSlot] = gap }
        nextSlot = (nextSlot + 1) % Self.capacity
    }

    /// The period is the common measure of the gaps: starting from their 10th percentile
    /// (the shortest gaps are single refreshes), each gap within 1 ms (or 6%) of a whole
    /// number k ≤ 8 of it counts, and the period is the median of gap / k over those.
    func report() -> DisplayFigures? {
        guard !gaps.isEmpty else { return nil }
        let sorted = gaps.sorted()
        let first = sorted[sorted.count / 10]
        guard first >= 1.0 / 500, first <= 1.0 / 24 else {
            return DisplayFigures(gaps: gaps.count, onWholePeriods: 0, periodMs: nil, refreshHz: nil)
        }
        // Gaps longer than 8 periods say little (the reports are only of overlays that changed).
        let near = gaps.filter { $0 <= 8.5 * first }
        var periods: [Double] = []
        for g in near {
            let k = max(1, (g / first).rounded())
            if abs(g - k * first) <= max(0.001, 0.06 * first) { periods.append(g / k) }
        }
        let share = Double(periods.count) / Double(near.count)
        guard near.count >= Self.minGaps, share >= Self.minShare else {
            return DisplayFigures(gaps: near.count, onWholePeriods: share, periodMs: nil, refreshHz: nil)
        }
        let period = periods.sorted()[periods.count / 2]
        return DisplayFigures(gaps: near.count, onWholePeriods: share, periodMs: period * 1000, refreshHz: 1 / period)
    }
}
