// The wait before a link's next attempt, as one value instead of a doubling written at each retry.

/// Starts at `initial`, doubles after each failed attempt up to `max`, and starts over once
/// a link is up. `next()` is the wait to take now.
struct LinkBackoff: Sendable, Equatable {
    let initial: Duration
    let max: Duration
    private(set) var current: Duration

    init(initial: Duration, max: Duration) {
        self.initial = initial
        self.max = max
        self.current = initial
    }

    /// No attempt has failed since the last link (or the start).
    var isFirst: Bool { current == initial }

    /// The wait to take now; the one after is twice as long (up to `max`).
    mutating func next() -> Duration {
        defer { current = Swift.min(current * 2, max) }
        return current
    }

    mutating func reset() { current = initial }
}
