// Counts one PERC's RSSI readings per dBm: exact min, median and max in constant memory.
import MTKTangibles
import PercRuntime

/// Every reading lands in one of the 148 possible dBm values (−127…+20), so a long live
/// run needs no growing list and the median is exact.
struct RSSIAccumulator: Sendable {
    private var counts = [Int](repeating: 0, count: RSSISample.validDBm.count)
    private(set) var count = 0
    private var last: RSSISample?

    /// Ignores values outside the valid range (the recording reader refuses them already).
    mutating func observe(_ s: RSSISample) {
        guard RSSISample.isReading(s.dBm) else { return }
        counts[s.dBm - RSSISample.validDBm.lowerBound] += 1
        count += 1
        if last.map({ s.arrival >= $0.arrival }) ?? true { last = s }
    }

    /// The figures, times relative to `origin` (start of the data) and `end` (its last frame).
    func report(origin: Seconds, end: Seconds) -> RSSIFigures {
        guard count > 0, let last else { return RSSIFigures() }
        var f = RSSIFigures(note: RSSIFigures.sourceNote)
        f.count = count
        f.lastDBm = last.dBm
        f.minDBm = value(rank: 0)
        f.maxDBm = value(rank: count - 1)
        f.medianDBm = Double(value(rank: (count - 1) / 2) + value(rank: count / 2)) / 2
        f.lastSeenAt = max(0, last.arrival - origin)
        f.lastSeenBeforeEnd = max(0, end - last.arrival)
        return f
    }

    /// The dBm of the reading at `rank` in ascending order.
    private func value(rank: Int) -> Int {
        var seen = 0
        for (i, n) in counts.enumerated() {
            seen += n
            if seen > rank { return i + RSSISample.validDBm.lowerBound }
        }
        return RSSISample.validDBm.upperBound
    }
}
