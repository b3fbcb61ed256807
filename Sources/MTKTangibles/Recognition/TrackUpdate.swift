// The result of maintaining a track for one frame: the new track and what changed.

/// What `TrackMaintainer` did to a track in one frame.
public struct TrackUpdate: Hashable, Sendable {
    public var track: Track
    /// traceReleased / traceAdopted events, in order.
    public var events: [TangibleEvent] = []
    /// RMS marker residual of a three-trace fit (feeds the jitter estimate), if there was one.
    public var residualRMS: Double?

    public init(track: Track, events: [TangibleEvent] = [], residualRMS: Double? = nil) {
        self.track = track; self.events = events; self.residualRMS = residualRMS
    }

    /// No trace left (checked on the slots: `track.traces` would build an array every frame).
    public var isEmpty: Bool { !track.slots.contains { $0 != nil } }
}
