// CLOCK_MONOTONIC in seconds: the clock of Present's ust, of the presented reports and of the pacing.
import Glibc

enum MonotonicSeconds {
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
