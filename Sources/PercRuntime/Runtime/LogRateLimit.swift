// At most one log line a second for something that can happen thousands of times a second.
import Synchronization
import PercSystem

/// `due()` says whether to log now and how many occurrences were not logged since the last
/// line, so a flood costs one line a second and the line still says how much happened.
public final class LogRateLimit: Sendable {
    private let interval: Double
    private let clock: @Sendable () -> Double
    private let state = Mutex<(last: Double, suppressed: Int)>((-.infinity, 0))

    public init(interval: Double = 1, clock: @escaping @Sendable () -> Double = MonotonicClock.now) {
        self.interval = interval; self.clock = clock
    }

    /// nil: do not log now (counted); otherwise how many were not logged since the last line.
    public func due() -> Int? {
        let now = clock()
        return state.withLock { s in
            guard now - s.last >= interval else { s.suppressed += 1; return nil }
            defer { s = (now, 0) }
            return s.suppressed
        }
    }
}
