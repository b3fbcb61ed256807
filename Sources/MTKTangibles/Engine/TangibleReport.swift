// One tangible's fused state in an engine output: what apps and outputs are told.

/// A tangible as of one step.
public struct TangibleReport: Hashable, Sendable, Codable {
    public var id: TangibleID
    public var name: String
    public var kind: TangibleDefinition.Kind
    public var state: TangibleStateName
    /// Present while tracked/recognized or resting.
    public var pose: Pose?
    public var provenance: Provenance?
    /// The traces it holds, in marker order (missing markers left out).
    public var traces: [TraceID]
    /// The matching tolerance it uses now (mm; adapts to its observed jitter).
    public var tolerance: Double
    /// The search phase while `onSurface`.
    public var searchPhase: SearchPhase?
    /// The light sensor's last reported value (PERC), if any.
    public var lightValue: Int?
    /// Battery percentage last reported (PERC), if any.
    public var battery: Int?
    /// State `placed`: the touch and sensor points (no pose: its orientation is unresolved).
    public var placement: Placement?
}
