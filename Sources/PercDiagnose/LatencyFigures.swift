// A latency summary taken from an HdrHistogram of microseconds: percentiles and bins for the picture.
import Histogram

/// Percentiles (ms) of a non-negative latency, and equal-width bins for the HTML histogram.
public struct LatencyFigures: Codable, Hashable, Sendable {
    public var count: Int
    var p50Ms: Double
    var p90Ms: Double
    var p99Ms: Double
    public var maxMs: Double
    var meanMs: Double
    var binWidthMs: Double
    /// Counts per bin, the first bin starting at 0 ms.
    public var bins: [Int]

    /// Nil for an empty histogram. Values are microseconds.
    public init?(_ h: Histogram<UInt64>, bins wanted: Int = 24) {
        guard h.totalCount > 0 else { return nil }
        count = Int(h.totalCount)
        p50Ms = Double(h.valueAtPercentile(50)) / 1000
        p90Ms = Double(h.valueAtPercentile(90)) / 1000
        p99Ms = Double(h.valueAtPercentile(99)) / 1000
        maxMs = Double(h.max) / 1000
        meanMs = h.mean / 1000
        // Bin widths of 1, 2, 5 × 10^k µs so the axis reads well.
        let span = Double(max(h.max, 1)) / Double(wanted)
        var width = 1.0, step = 0
        while width < span { width *= step % 3 == 1 ? 2.5 : 2; step += 1 }
        binWidthMs = width / 1000
        let w = UInt64(width)
        let n = Int(h.max / max(w, 1)) + 1
        bins = (0..<n).map { i in Int(h.count(within: UInt64(i) * w...(UInt64(i + 1) * w - 1))) }
    }

    /// A histogram of microsecond values (up to 60 s) with three significant digits.
    static func histogram() -> Histogram<UInt64> {
        Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
    }
}
