// One frame of a trace's life, stored by value in the trace's contiguous entry buffer.

/// What a trace looked like in one frame (thesis 3.2.1: one entry per frame, all entries of
/// a frame carry that frame's timestamp). A plain value: a trace's entries live in one
/// contiguous buffer inside `TraceTable`, never as one object each.
public struct TraceEntry: Hashable, Sendable, Codable {
    /// The frame's number and timestamp (the frame clock, not the sample's own time).
    public var frame: UInt64
    public var time: Seconds
    /// Position on the surface (mm), and the raw device coordinates if the source had them.
    public var position: Vec2
    public var raw: Vec2?
    /// Touch ellipse (mm) and orientation (radians) if the source reports them.
    public var major: Double?
    public var minor: Double?
    public var orientation: Double?
    /// begin in the first frame, end in the last, move in between (and in frames without
    /// a new sample: the touch is still there, unchanged).
    public var phase: ContactUpdate.Phase
    /// Arrival time (CLOCK_MONOTONIC) of the sample this entry holds.
    public var arrival: Seconds

    public init(frame: UInt64, time: Seconds, position: Vec2, raw: Vec2? = nil, major: Double? = nil,
                minor: Double? = nil, orientation: Double? = nil, phase: ContactUpdate.Phase, arrival: Seconds) {
        self.frame = frame; self.time = time; self.position = position; self.raw = raw
        self.major = major; self.minor = minor; self.orientation = orientation
        self.phase = phase; self.arrival = arrival
    }
}
