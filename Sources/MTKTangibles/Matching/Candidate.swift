// One way a set of traces could be a tangible: a fitting triple or a two-trace tuple.

/// A fitting triple (three traces) or tuple (two traces, one pose of several) for a
/// marker pattern. `traces[marker]` is the trace on that marker, nil for the marker a
/// tuple lacks.
public struct Candidate: Hashable, Sendable {
    public var traces: [TraceID?]
    public var pose: Pose
    /// Largest marker displacement of the fit (mm); for tuples the side-length error.
    public var residual: Double
    public var origin: InputOrigin
    /// Latest and earliest begin time of its traces.
    public var latestBegin: Seconds
    public var earliestBegin: Seconds
    /// Whether any of its traces moved over the stationary window, and their mean velocity.
    public var isMoving: Bool
    public var velocity: Vec2
    /// How far back the triple was checked to fit (shared history, up to the history window).
    public var fittedHistory: Seconds

    public var isTuple: Bool { traces.contains(nil) }
    /// The traces, sorted: two candidates with the same set are the same touches.
    public var traceSet: [TraceID] { traces.compactMap { $0 }.sorted() }

    public func shares(_ ids: some Sequence<TraceID>) -> Bool {
        for id in ids where traces.contains(id) { return true }
        return false
    }

    /// The identity of a candidate across frames: its traces on their markers. One pair of
    /// traces gives several tuples; the three traces of a nearly symmetric pattern fit it
    /// in more than one way (a near-equilateral one in three, 120° apart), each with its own
    /// light-sensor position, and light checks each (`Engine.withAlternatives`).
    func sameCandidate(_ o: Candidate) -> Bool { traces == o.traces }

    /// Under what a rejected light check keeps it from being offered again: a triple's
    /// traces on their markers (another way they fit is another hypothesis), a tuple's
    /// two traces (every pose of the pair).
    var rejectionKey: [TraceID] { isTuple ? traceSet : traces.map { $0! } }
}
