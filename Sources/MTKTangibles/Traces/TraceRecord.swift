// One trace as the table stores it: the summary plus its entries and samples as value buffers.

/// Internal storage of one trace. Entries and samples are contiguous value buffers (the
/// thesis moved from one object per entry to C structs for the same reason: no per-entry
/// allocation); the entries are a ring, so the per-trace cap drops old ones in O(1).
struct TraceRecord: Sendable {
    var summary: TraceSummary
    var entries: EntryRing<TraceEntry>
    var samples: ContiguousArray<TraceSample>

    /// Index of the last entry at or before `time`, or nil when `time` precedes them all.
    func entryIndex(atOrBefore time: Seconds) -> Int? {
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries[mid].time <= time { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? nil : lo - 1
    }

    /// Mean positions over the first and the second half of the window ending at `now`,
    /// and the time between the halves' centres; nil with fewer than two entries.
    func halfMeans(window: Seconds, now: Seconds) -> (first: Vec2, second: Vec2, span: Seconds)? {
        guard entries.count >= 2 else { return nil }
        let lo = firstEntry(atOrAfter: now - window)
        let end = entries.count
        guard end - lo >= 2 else { return nil }
        let split = lo + (end - lo) / 2
        var a = Vec2.zero, b = Vec2.zero, ta = 0.0, tb = 0.0
        for i in lo..<split { a += entries[i].position; ta += entries[i].time }
        for i in split..<end { b += entries[i].position; tb += entries[i].time }
        let na = Double(split - lo), nb = Double(end - split)
        return (a / na, b / nb, tb / nb - ta / na)
    }

    /// Index of the first entry at or after `time` (`entries.count` when there is none).
    func firstEntry(atOrAfter time: Seconds) -> Int {
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries[mid].time < time { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Mean position of the touch samples in the window ending at `now`, and how many there
    /// are: an entry repeated in a frame without a new sample keeps its arrival time and is
    /// not counted again. Nil with no entry in the window.
    func windowMean(window: Seconds, now: Seconds) -> (position: Vec2, samples: Int)? {
        let lo = firstEntry(atOrAfter: now - window)
        guard lo < entries.count else { return nil }
        var sum = Vec2.zero, samples = 0
        var lastArrival = -Double.infinity
        for i in lo..<entries.count where entries[i].arrival != lastArrival {
            sum += entries[i].position
            samples += 1
            lastArrival = entries[i].arrival
        }
        return (sum / Double(samples), samples)
    }
}
