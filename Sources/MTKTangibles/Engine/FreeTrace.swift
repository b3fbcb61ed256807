// A trace no tangible holds: a pointer (finger) for apps.

/// A trace left for apps after recognition (TUIO `2Dcur` / `ptr`). Traces that ended in
/// this frame are included once more with phase `end`.
public struct FreeTrace: Hashable, Sendable, Codable {
    public var id: TraceID
    public var origin: InputOrigin
    public var position: Vec2
    public var phase: ContactUpdate.Phase
    public var beganAt: Seconds
}
