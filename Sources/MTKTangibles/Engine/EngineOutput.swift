// Everything one engine step produces.

/// The result of `Engine.step`: each tangible's state, pose, provenance and traces, the
/// traces left for apps, the light checks wanted, and what happened (typed events).
public struct EngineOutput: Hashable, Sendable, Codable {
    public var frame: UInt64
    public var time: Seconds
    /// Every defined tangible, in id order.
    public var tangibles: [TangibleReport]
    public var freeTraces: [FreeTrace]
    /// The verification needs standing after this step (a need absent here is withdrawn).
    public var needs: [VerificationNeed]
    public var events: [EngineEvent]
    public var counters: EngineCounters

    public func tangible(_ id: TangibleID) -> TangibleReport? { tangibles.first { $0.id == id } }
}
