// How long the overlay's frames took from the service's plan to the screen.

/// Planned → on screen, for the overlay's log: the last `capacity` frames (bounded whatever
/// the uptime), their median and 99th percentile.
public struct ShownLatency: Sendable, Equatable {
    public static let capacity = 2048
    private var ring: [Double] = []
    private var next = 0
    public private(set) var total = 0

    public init() {}

    public mutating func add(_ seconds: Double) {
        guard seconds.isFinite else { return }
        total += 1
        if ring.count < Self.capacity { ring.append(seconds) } else { ring[next] = seconds }
        next = (next + 1) % Self.capacity
    }

    /// (median, 99th percentile) in seconds of the kept frames; nil before the first.
    public var percentiles: (p50: Double, p99: Double)? {
        guard !ring.isEmpty else { return nil }
        let sorted = ring.sorted()
        // Nearest rank: the smallest value with at least q of the values at or below it.
        func at(_ q: Double) -> Double { sorted[max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1)] }
        return (at(0.5), at(0.99))
    }

    public var summary: String? {
        guard let p = percentiles else { return nil }
        return String(format: "%d overlays shown; planned → on screen p50 %.1f ms, p99 %.1f ms (last %d)",
                      total, p.p50 * 1000, p.p99 * 1000, min(total, Self.capacity))
    }
}
