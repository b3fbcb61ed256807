// What every output (TUIO, WebSocket, D-Bus, metrics) sends about one frame.
import MTKTangibles

/// The fused state after one pipeline step, in output-neutral form: each output turns it
/// into its own wire format. Built by the pipeline from the engine's output.
public struct SurfaceSnapshot: Hashable, Sendable {
    var frame: UInt64
    /// Frame time on the service's monotonic timeline (seconds).
    var time: Seconds
    public var tangibles: [TangibleSnapshot]
    /// Finger traces not used by any tangible.
    var pointers: [PointerSnapshot]

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
    var session: Int64?
    /// Surface velocity (mm/s), zero when unknown.
    var velocity: Vec2 = .zero
    /// Turn rate (rad/s, same sense as `Pose.angle`), zero when unknown.
    var angularVelocity: Double = 0
    /// Whether apps should show it on the surface (TUIO alive): it has a pose.
    var isOnSurface: Bool { pose != nil }
    /// Last sensor values; nil when never reported.
    var field: Int?
    var light: Int?
    var battery: Int?
}

/// A finger trace.
struct PointerSnapshot: Hashable, Sendable {
    /// Stable for the life of the trace (TUIO session id).
    var id: Int64
    var position: Vec2
    var velocity: Vec2 = .zero
    var origin: String = ""
}
