// A small distribution of signed values (ms) kept as samples: percentiles of values and of their magnitude.

/// Samples that may be negative (a marker trace can begin before the field-on notification),
/// so HdrHistogram does not fit; there are few of them (a handful per placement).
public struct SignedDistribution: Codable, Hashable, Sendable {
    public private(set) var samples: [Double] = []

    public init(_ samples: [Double] = []) { self.samples = samples }

    public mutating func add(_ v: Double) { if v.isFinite { samples.append(v) } }

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
