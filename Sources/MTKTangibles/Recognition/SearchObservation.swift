// What the engine found for one searching tangible in one frame (input of a `.search` event).

/// The candidates open to one tangible this frame: only traces no other tangible holds
/// (traces of a pending window guess stay open to rivals until the window ends).
public struct SearchObservation: Sendable {
    /// Fitting triples whose traces all began inside the tangible's time window.
    public var windowTriples: [Candidate] = []
    /// All fitting triples (PERC lightOnly phase; PUC search).
    public var triples: [Candidate] = []
    /// Two-trace tuples (PERC lightOnly phase only).
    public var tuples: [Candidate] = []
    /// Recovery around a resting tangible's kept pose (two or three traces), if any fit.
    public var nearPose: TrackUpdate?
    /// Trace sets of window triples another searching tangible could take too.
    public var contested: Set<[TraceID]> = []

    public init() {}

    public func isContested(_ c: Candidate) -> Bool { contested.contains(c.traceSet) }
}
