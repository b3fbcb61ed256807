// How often the overlay re-raises itself (pure: time is an argument).

/// Re-raises at most every `minimumInterval`. Kiosk apps raise themselves; one that does it each
/// time it sees another window on top would ping-pong with us as fast as the server allows. A raise
/// asked for too soon is owed and done at `deadline`.
struct RaiseLimiter {
    static let minimumInterval = 0.05

    private(set) var lastRaise = -Double.infinity
    private(set) var owed = false
    /// Raises asked for while one was owed: a sign that another client fights for the top.
    private(set) var contested = 0

    /// When an owed raise is due.
    var deadline: Double? { owed ? lastRaise + Self.minimumInterval : nil }

    /// True: raise now. False: it is owed (done when `due(now:)` says so).
    mutating func request(now: Double) -> Bool {
        if now >= lastRaise + Self.minimumInterval {
            lastRaise = now
            owed = false
            return true
        }
        if owed { contested += 1 }
        owed = true
        return false
    }

    /// True: the owed raise is due now.
    mutating func due(now: Double) -> Bool {
        // The same sum as `deadline`: a poll that wakes at the deadline finds the raise due.
        guard owed, now >= lastRaise + Self.minimumInterval else { return false }
        owed = false
        lastRaise = now
        return true
    }
}
