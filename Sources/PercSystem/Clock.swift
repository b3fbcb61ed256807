// CLOCK_MONOTONIC reads and absolute-deadline sleeps (clock_gettime / clock_nanosleep), wrapped once.
import Glibc

/// The monotonic clock evdev events (after EVIOCSCLOCKID) and BlueZ arrivals share.
public enum PosixClock {
    /// Seconds of CLOCK_MONOTONIC.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// CLOCK_REALTIME minus CLOCK_MONOTONIC now: maps wall-clock event times (a device that
    /// refused EVIOCSCLOCKID) onto the monotonic timeline.
    public static func realtimeOffset() -> Double {
        var rt = timespec(), mono = timespec()
        clock_gettime(CLOCK_REALTIME, &rt)
        clock_gettime(CLOCK_MONOTONIC, &mono)
        return (Double(rt.tv_sec) - Double(mono.tv_sec)) + (Double(rt.tv_nsec) - Double(mono.tv_nsec)) / 1e9
    }

    /// Sleeps until CLOCK_MONOTONIC reaches `deadline` (absolute, so no drift accumulates
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
}
