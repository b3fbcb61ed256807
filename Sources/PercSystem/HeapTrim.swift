// Gives freed heap back to the system after apps leave (glibc keeps it in per-thread arenas).
import CDBus
import Synchronization

/// Each NIO thread allocates from its own glibc arena; the buffers of thousands of app
/// connections, once freed, stay mapped in those arenas (fragmented, so glibc's automatic
/// trim at the top of the heap rarely applies). `malloc_trim(0)` returns the free pages of
/// every arena. It walks the heap, so it runs at most once a second, when apps leave.
public enum HeapTrim {
    private static let last = Mutex<Double>(-.infinity)

    /// Call when an app left; trims when the last trim is a second old, or at once when none are left.
    public static func appLeft(remaining: Int, now: Double = MonotonicClock.now()) {
        let due = last.withLock { l -> Bool in
            guard now - l >= (remaining == 0 ? 0.1 : 1) else { return false }
            l = now
            return true
        }
        if due { _ = malloc_trim(0) }
    }
}
