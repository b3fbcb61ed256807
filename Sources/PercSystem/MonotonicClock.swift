// The service's timeline: CLOCK_MONOTONIC read (clock_gettime) and slept on (clock_nanosleep), wrapped once.
import Glibc

/// The one clock every input, output and the D-Bus layer stamp with: CLOCK_MONOTONIC, the
/// clock evdev events (after EVIOCSCLOCKID) and BlueZ arrivals share.
public enum MonotonicClock {
    /// Now, in nanoseconds since boot (the D-Bus layer's arrival stamps and call deadlines).
    public static func nanosecondsNow() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Now, in seconds since boot.
    @Sendable public static func now() -> Double {
        Double(nanosecondsNow()) / 1e9
    }

    /// CLOCK_REALTIME minus CLOCK_MONOTONIC now: maps wall-clock event times (a device that
    /// refused EVIOCSCLOCKID) onto the monotonic timeline. The wall clock is read between two
    /// monotonic reads, and the narrowest of a few tries is kept: a thread preempted between
    /// two plain reads (a loaded machine) would shift every event of that read by the time it
    /// was off the CPU (16 ms was seen in CI).
    public static func realtimeOffset() -> Double {
        func ns(_ t: timespec) -> Int64 { Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec) }
        var best: Int64 = 0, narrowest = Int64.max
        for _ in 0..<4 {
            var before = timespec(), rt = timespec(), after = timespec()
            clock_gettime(CLOCK_MONOTONIC, &before)
            clock_gettime(CLOCK_REALTIME, &rt)
            clock_gettime(CLOCK_MONOTONIC, &after)
            let width = ns(after) - ns(before)
            guard width < narrowest else { continue }
            narrowest = width
            best = ns(rt) - (ns(before) + width / 2)
            if width < 20_000 { break }
        }
        return Double(best) / 1e9
    }

    /// Sleeps until the clock reaches `deadline` seconds (absolute, so no drift accumulates
    /// over many ticks); retried on EINTR. Returns at once when the deadline has passed.
    public static func sleep(until deadline: Double) {
        guard deadline.isFinite, deadline > 0 else { return }
        var ts = timespec()
        let whole = deadline.rounded(.down)
        ts.tv_sec = Int(whole)
        ts.tv_nsec = min(Int((deadline - whole) * 1e9), 999_999_999)
        while true {
            let rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil)
            if rc != EINTR { return }
        }
    }

    /// `duration` in nanoseconds, clamped to 0...(about 292 years).
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        guard seconds < Int64(UInt64.max / 1_000_000_000) - 1 else { return UInt64.max / 2 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
