// CLOCK_MONOTONIC in nanoseconds: arrival stamps and call deadlines of the D-Bus layer.
import Glibc

/// Reads CLOCK_MONOTONIC (the service's timeline, see DESIGN.md "One frame clock").
public enum DBusMonotonicClock {
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// `duration` in nanoseconds, clamped to 0...(about 292 years).
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        guard seconds < Int64(UInt64.max / 1_000_000_000) - 1 else { return UInt64.max / 2 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
