// A sample of a touch that arrived between frames and was coalesced into the frame's entry.

/// Sources may deliver several samples of one contact per frame; the last one becomes the
/// frame's `TraceEntry`, the earlier ones are kept here (thesis 3.2.1 "coalesced samples"),
/// e.g. for gesture velocity estimates finer than the frame rate.
public struct TraceSample: Hashable, Sendable, Codable {
    /// The frame the sample was coalesced into.
    public var frame: UInt64
    /// The sender's time of the sample and its arrival time.
    public var time: Seconds
    public var arrival: Seconds
    public var position: Vec2

    public init(frame: UInt64, time: Seconds, arrival: Seconds, position: Vec2) {
        self.frame = frame; self.time = time; self.arrival = arrival; self.position = position
    }
}
