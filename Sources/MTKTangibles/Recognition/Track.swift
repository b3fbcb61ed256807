// The traces a recognised tangible holds, marker by marker, and the pose they give.

/// A recognised tangible's hold on the surface. `slots[marker]` is the trace on that
/// marker, nil while the marker has no trace (flicker, filtering, too few touches).
public struct Track: Hashable, Sendable {
    public var slots: [TraceID?]
    public var pose: Pose
    /// The one input source all its traces come from.
    public var origin: InputOrigin
    public var provenance: Provenance
    /// When the tangible was recognised with these traces.
    public var since: Seconds
    /// Taken without the light check it would have had, because no app drew the overlay
    /// (`guessedUnchecked`): once one draws, the guess is withdrawn and checked.
    public var unchecked = false
    /// While the PERC's link is down: the provenance it had before. Its markers still touch,
    /// so it is followed by its traces and reported `kept` until the link is back.
    public var provenanceBeforeLinkLoss: Provenance?
    /// After the link came back: the provenance to give back once a light check of the
    /// pose confirms it is still this PERC (two of one pattern may have been swapped while
    /// it was down), and those checks. Until then it stays `kept`.
    var reconfirming: Reconfirmation?

    struct Reconfirmation: Hashable, Sendable {
        var provenance: Provenance
        var checks: StationaryChecks
    }

    public init(slots: [TraceID?], pose: Pose, origin: InputOrigin, provenance: Provenance, since: Seconds) {
        self.slots = slots; self.pose = pose; self.origin = origin; self.provenance = provenance; self.since = since
    }

    init(_ c: Candidate, provenance: Provenance, since: Seconds) {
        self.init(slots: c.traces, pose: c.pose, origin: c.origin, provenance: provenance, since: since)
    }

    public var traces: [TraceID] { slots.compactMap { $0 } }
}
