// What one scenario step does: the verbs of the scenario format (docs/simulator.md).
import MTKTangibles

/// One thing that happens in a scenario. Angles are degrees, clockwise on screen; points
/// are `[x, y]` millimetres; times are seconds.
public enum ScenarioAction: Hashable, Sendable {
    /// Set a tangible down. `touches` names the markers that make a touch (default: as the
    /// hardware model decides).
    case place(Place)
    /// Move a tangible to `to` (through `via`), turning by `turn` degrees or to `angle`, at
    /// `speed` mm/s or in `duration` s. `ghostMarker` freezes that marker's touch (ghost).
    case move(Move)
    /// Turn a tangible in place by `by` degrees in `duration` s.
    case rotate(Rotate)
    /// Lift a tangible off the surface.
    case lift(TangibleRef)
    /// A finger rests on a tangible (at `point`, its own frame), for `duration` s or until `release`.
    case touch(Touch)
    case release(TangibleRef)
    /// Put a finger down, move it, lift it.
    case fingerDown(FingerDown)
    case fingerMove(FingerMove)
    case fingerUp(FingerRef)
    /// Three fingers put down where tangible `like`'s markers would be at `position`/`angle`
    /// (times `scale`): a finger triple that fits a tangible.
    case fingersTriple(FingersTriple)
    /// A PERC goes out of range / comes back.
    case linkLoss(TangibleRef)
    case linkReturn(TangibleRef)
    /// Change hardware settings from now on.
    case hardware(HardwareOverrides)
    /// The app's background colour changes (a scene change under the light sensors).
    case background(LightColour)
    /// A marker touch drops out for `frames` touch samples.
    case flicker(Flicker)

    public struct TangibleRef: Hashable, Sendable, Codable {
        public var tangible: TangibleID
        public init(tangible: TangibleID) { self.tangible = tangible }
    }
    public struct FingerRef: Hashable, Sendable, Codable {
        public var finger: Int
        public init(finger: Int) { self.finger = finger }
    }
    public struct Place: Hashable, Sendable, Codable {
        public var tangible: TangibleID
        public var position: ScenarioPoint
        public var angle: Double?
        public var touches: [Int]?
        public init(tangible: TangibleID, position: ScenarioPoint, angle: Double? = nil, touches: [Int]? = nil) {
            self.tangible = tangible; self.position = position; self.angle = angle; self.touches = touches
        }
    }
    public struct Move: Hashable, Sendable, Codable {
        public var tangible: TangibleID
        public var to: ScenarioPoint?
        public var via: [ScenarioPoint]?
        public var turn: Double?
        public var angle: Double?
        public var speed: Double?
        public var duration: Double?
        public var ghostMarker: Int?
        public init(tangible: TangibleID, to: ScenarioPoint? = nil, via: [ScenarioPoint]? = nil, turn: Double? = nil,
                    angle: Double? = nil, speed: Double? = nil, duration: Double? = nil, ghostMarker: Int? = nil) {
            self.tangible = tangible; self.to = to; self.via = via; self.turn = turn; self.angle = angle
            self.speed = speed; self.duration = duration; self.ghostMarker = ghostMarker
        }
    }
    public struct Rotate: Hashable, Sendable, Codable {
        public var tangible: TangibleID
        public var by: Double
        public var duration: Double
        public init(tangible: TangibleID, by: Double, duration: Double) { self.tangible = tangible; self.by = by; self.duration = duration }
    }
    public struct Touch: Hashable, Sendable, Codable {
        public var tangible: TangibleID
        public var point: ScenarioPoint?
        public var duration: Double?
        public init(tangible: TangibleID, point: ScenarioPoint? = nil, duration: Double? = nil) {
            self.tangible = tangible; self.point = point; self.duration = duration
        }
    }
    public struct FingerDown: Hashable, Sendable, Codable {
        public var finger: Int
        public var position: ScenarioPoint
        public init(finger: Int, position: ScenarioPoint) { self.finger = finger; self.position = position }
    }
    public struct FingerMove: Hashable, Sendable, Codable {
        public var finger: Int
        public var to: ScenarioPoint
        public var via: [ScenarioPoint]?
        public var speed: Double?
        public var duration: Double?
        public init(finger: Int, to: ScenarioPoint, via: [ScenarioPoint]? = nil, speed: Double? = nil, duration: Double? = nil) {
            self.finger = finger; self.to = to; self.via = via; self.speed = speed; self.duration = duration
        }
    }
    public struct FingersTriple: Hashable, Sendable, Codable {
        public var fingers: [Int]
        public var like: TangibleID
        public var position: ScenarioPoint
        public var angle: Double?
        public var scale: Double?
        public init(fingers: [Int], like: TangibleID, position: ScenarioPoint, angle: Double? = nil, scale: Double? = nil) {
            self.fingers = fingers; self.like = like; self.position = position; self.angle = angle; self.scale = scale
        }
    }
    public struct Flicker: Hashable, Sendable, Codable {
        public var tangible: TangibleID
        public var marker: Int
        public var frames: Int
        public init(tangible: TangibleID, marker: Int, frames: Int) { self.tangible = tangible; self.marker = marker; self.frames = frames }
    }

    /// The JSON key of each verb.
    public static let verbs = ["place", "move", "rotate", "lift", "touch", "release", "fingerDown", "fingerMove",
                               "fingerUp", "fingersTriple", "linkLoss", "linkReturn", "hardware", "background", "flicker"]

    public var verb: String {
        switch self {
        case .place: "place"
        case .move: "move"
        case .rotate: "rotate"
        case .lift: "lift"
        case .touch: "touch"
        case .release: "release"
        case .fingerDown: "fingerDown"
        case .fingerMove: "fingerMove"
        case .fingerUp: "fingerUp"
        case .fingersTriple: "fingersTriple"
        case .linkLoss: "linkLoss"
        case .linkReturn: "linkReturn"
        case .hardware: "hardware"
        case .background: "background"
        case .flicker: "flicker"
        }
    }
}
