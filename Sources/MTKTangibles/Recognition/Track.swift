// The traces a recognised tangible holds, marker by marker, and the pose they give.

/// A recognised tangible's hold on the surface. `slots[marker]` is the trace on that
/// marker, nil while the marker has no trace (flicker, filtering, too few touches).
/// (A tracked PERC's sub-state, its pending guess and its link, is the machine's:
/// `PercMachine.TrackedPhase`.)
public struct Track: Hashable, Sendable {
    public var slots: [TraceID?]
    public var pose: Pose
    /// The one input source all its traces come from.
    public var origin: InputOrigin
    /// The provenance reported (`kept` while a tracked PERC's link is down or being re-confirmed).
    public var provenance: Provenance
    /// When the tangible was recognised with these traces.
    public var since: Seconds

    public init(slots: [TraceID?], pose: Pose, origin: InputOrigin, provenance: Provenance, since: Seconds) {
        self.slots = slots; self.pose = pose; self.origin = origin; self.provenance = provenance; self.since = since
    }

    init(_ c: Candidate, provenance: Provenance, since: Seconds) {
        self.init(slots: c.traces, pose: c.pose, origin: c.origin, provenance: provenance, since: since)
    }

    public var traces: [TraceID] { slots.compactMap { $0 } }
}
