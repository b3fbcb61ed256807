// What every output (TUIO, WebSocket, D-Bus, metrics) sends about one frame.
import MTKTangibles

/// The fused state after one pipeline step, in output-neutral form: each output turns it
/// into its own wire format. Built by the pipeline from the engine's output.
public struct SurfaceSnapshot: Hashable, Sendable {
    public var frame: UInt64
    /// Frame time on the service's monotonic timeline (seconds).
    public var time: Seconds
    public var tangibles: [TangibleSnapshot]
    /// Finger traces not used by any tangible.
    public var pointers: [PointerSnapshot]

    init(frame: UInt64, time: Seconds, tangibles: [TangibleSnapshot] = [], pointers: [PointerSnapshot] = []) {
        self.frame = frame; self.time = time; self.tangibles = tangibles; self.pointers = pointers
    }
}

/// One known tangible as of a frame. `pose` is nil unless the state has one.
public struct TangibleSnapshot: Hashable, Sendable {
    /// The engine's state names: PERCs notInRange…resting, PUCs notRecognized/recognized.
    public typealias State = TangibleStateName

    public var id: TangibleID
    public var name: String
    var kind: TangibleDefinition.Kind = .perc
    public var state: State
    public var pose: Pose?
    public var provenance: Provenance?
    /// State `placed`: touch and sensor points, orientation unresolved (no pose, not in TUIO).
    public var placement: Placement?
    /// Changes each time the tangible is recognised anew (TUIO session id).
    public var session: Int64?
    /// Surface velocity (mm/s), zero when unknown.
    public var velocity: Vec2 = .zero
    /// Turn rate (rad/s, same sense as `Pose.angle`), zero when unknown.
    public var angularVelocity: Double = 0
    /// Whether apps should show it on the surface (TUIO alive): it has a pose.
    public var isOnSurface: Bool { pose != nil }
    /// Last sensor values; nil when never reported.
    public var field: Int?
    public var light: Int?
    public var battery: Int?
}

/// A finger trace.
public struct PointerSnapshot: Hashable, Sendable {
    /// Stable for the life of the trace (TUIO session id).
    public var id: Int64
    public var position: Vec2
    public var velocity: Vec2 = .zero
    public var origin: String = ""
}
