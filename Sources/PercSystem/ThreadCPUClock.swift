// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), wrapped once, for benchmarks.

#if canImport(Glibc)
import Glibc
#endif

/// Reads the calling thread's CPU time. Benchmarks time short steps with it so that other
/// processes on a shared machine do not inflate the figures (wall-clock time would count
/// the time the thread waited for a core).
public enum ThreadCPUClock {
    /// Nanoseconds of CPU time this thread has used.
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 else { return 0 }
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
