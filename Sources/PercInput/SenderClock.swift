// A sender's own clock (any epoch) on the monotonic timeline: the least-delayed sample, allowed to age, re-anchored on a step.
import MTKTangibles

/// Maps a sender's timestamps (the MTK feed's `timestamp`, the app protocol's `app_time`)
/// onto the monotonic timeline by the smallest `arrival − stamp` seen: the least-delayed
/// sample, so no time is placed after its arrival. A plain minimum over a connection's life
/// goes stale on a table that runs for days: a sender's clock that runs slower than ours
/// (tens of ppm: seconds a day) or steps back (NTP) would place every later touch further and
/// further before its arrival. So the minimum may rise by `maxDrift` per second of arrival
/// (an older least-delayed sample counts for less), and a sample that arrives more than
/// `maxLag` after the time the estimate gives it re-anchors the estimate at once. Pure.
struct SenderClock: Sendable {
    /// How fast the sender's clock may fall behind ours and be followed without a re-anchor
    /// (1,000 ppm: ten times a poor crystal's error).
    static let maxDrift = 1e-3
    /// A sample this much later than its mapped time means the sender's clock stepped back.
    static let maxLag: Seconds = 1

    private var offset: Double?
    private var lastArrival: Seconds = 0
    /// Times the estimate was re-anchored (the sender's clock stepped back).
    private(set) var reanchored = 0

    /// The monotonic time of a sample stamped `stamp` by the sender that arrived at `arrival`.
    mutating func time(stamp: Double, arrival: Seconds) -> Seconds {
        let sample = arrival - stamp
        if var o = offset {
            o += Self.maxDrift * Swift.max(0, arrival - lastArrival)
            if sample - o > Self.maxLag { o = sample; reanchored += 1 }
            offset = Swift.min(o, sample)
        } else {
            offset = sample
        }
        lastArrival = Swift.max(lastArrival, arrival)
        return Swift.min(stamp + offset!, arrival)  // rounding of large stamps aside, offset ≤ sample
    }
}
