// A small distribution of signed values (ms) kept as samples: percentiles of values and of their magnitude.

/// Samples that may be negative (a marker trace can begin before the field-on notification),
/// so HdrHistogram does not fit; there are few of them (a handful per placement).
///
/// At most `capacity` samples are kept, the newest: `serve`'s live diagnostics add some with
/// every placement for as long as the table runs, and every `/metrics` scrape sorts them
/// (issue 36). 4,096 onsets are about 1,400 placements of a PERC, plenty for a p99.
public struct SignedDistribution: Codable, Hashable, Sendable {
    public static let capacity = 4096
    public private(set) var samples: [Double] = []
    /// Where the next sample goes once `samples` is full (the oldest is replaced).
    private var next = 0

    private enum CodingKeys: String, CodingKey { case samples }

    public init(_ samples: [Double] = []) { self.samples = Array(samples.suffix(Self.capacity)) }

    public mutating func add(_ v: Double) {
        guard v.isFinite else { return }
        if samples.count < Self.capacity { samples.append(v); return }
        samples[next] = v
        next = (next + 1) % Self.capacity
    }

    public var count: Int { samples.count }
    public var min: Double? { samples.min() }
    public var max: Double? { samples.max() }
    public var mean: Double? { samples.isEmpty ? nil : samples.reduce(0, +) / Double(samples.count) }

    /// The `q` quantile (0...1, nearest rank) of the values.
    public func quantile(_ q: Double) -> Double? { Self.quantile(samples.sorted(), q) }
    /// The `q` quantile of the absolute values.
    func magnitudeQuantile(_ q: Double) -> Double? { Self.quantile(samples.map(abs).sorted(), q) }

    static func quantile(_ sorted: [Double], _ q: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((q * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.min(sorted.count - 1, Swift.max(0, rank))]
    }

    /// Counts in bins of `width` from `from`, for the HTML histogram.
    public func bins(from: Double, width: Double, count: Int) -> [Int] {
        var out = Array(repeating: 0, count: count)
        for s in samples {
            let i = Int(((s - from) / width).rounded(.down))
            out[Swift.min(count - 1, Swift.max(0, i))] += 1
        }
        return out
    }
}
