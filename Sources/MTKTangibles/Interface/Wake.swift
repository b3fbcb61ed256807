// When time alone can next change what a frame step decides: the frame core's next deadline.

/// When time alone (no input) can next change what a step decides. The engine, the
/// light-check scheduler and the frame core that joins them each say it after a step; an
/// event-driven frame clock sleeps until then (or until input).
public enum Wake: Hashable, Sendable {
    /// Every frame: something changes with time continuously (traces on the surface, a
    /// search's time window, a check's rounds and deadlines).
    case everyFrame
    /// At this frame time, not before (a resting PERC's next stationary check).
    case at(Seconds)
    /// Not by time: only input changes anything.
    case never

    /// The earlier of two.
    public func earliest(_ other: Wake) -> Wake {
        switch (self, other) {
        case (.everyFrame, _), (_, .everyFrame): .everyFrame
        case (.never, let w), (let w, .never): w
        case (.at(let a), .at(let b)): .at(min(a, b))
        }
    }

    /// Whether a frame cut at `time` is due (a frame without input changes something).
    public func isDue(at time: Seconds) -> Bool {
        switch self {
        case .everyFrame: true
        case .at(let t): time >= t
        case .never: false
        }
    }
}
