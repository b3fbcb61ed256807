// Ground truth of a simulation: who made each contact, where tangibles were, when fields went on.
import MTKTangibles

/// What really happened in a simulated world, for scoring recognisers: every contact's
/// maker, every placement with its field-on timing. True poses at any time come from
/// `SimWorld.truePose(of:at:)`.
public struct SimTruth: Hashable, Sendable, Codable {
    /// What made a contact.
    public enum Maker: Hashable, Sendable, Codable {
        case marker(tangible: TangibleID, index: Int)
        case finger(Int)
    }

    public struct Contact: Hashable, Sendable, Codable {
        public var id: Int64
        public var maker: Maker
        /// Arrival time of its first and last update.
        public var began: Seconds
        public var ended: Seconds?
        /// A marker touch that froze in place (thesis 3.3.1 Ghost touches): from then on it
        /// no longer follows its marker.
        public var ghostSince: Seconds?
    }

    public struct Placement: Hashable, Sendable, Codable {
        public var tangible: TangibleID
        public var placedAt: Seconds
        public var pose: Pose
        /// When the field sensor fired, and when its notification arrived (nil: not
        /// delivered, e.g. link down or notification lost, or a PUC).
        public var fieldOnAt: Seconds
        public var fieldOnArrival: Seconds?
        /// The markers that make a touch at placement, and each one's planned arrival time.
        public var touchingMarkers: [Int]
        public var markerOnsets: [Seconds]
        /// Why fewer than three markers touch, if so.
        public var reducedBy: ReducedTouches?
        public var liftedAt: Seconds?
    }

    /// Why a placement made fewer than three marker touches (HARDWARE-MODEL.md).
    public enum ReducedTouches: String, Hashable, Sendable, Codable {
        case singleTouch, scanline, scenario
    }

    /// A light-state change the sensor made on its own (not caused by the display).
    public struct Flip: Hashable, Sendable, Codable {
        public var tangible: TangibleID
        public var time: Seconds
        public var colour: LightColour
    }

    public var contacts: [Int64: Contact] = [:]
    public var spontaneousFlips: [Flip] = []
    /// Colour changes under a light sensor that differed from its state, and how many of them it missed.
    public var lightStimuli = 0
    public var lightMisses = 0
    /// Sensor notifications lost on the link.
    public var lostNotifications = 0
    public var placements: [Placement] = []

    /// The contacts a tangible made (markers, including ghosts), in id order.
    public func contacts(of tangible: TangibleID) -> [Contact] {
        contacts.values.filter { if case .marker(tangible, _) = $0.maker { return true } else { return false } }
            .sorted { $0.id < $1.id }
    }

    /// The latest placement of a tangible that began at or before `time`.
    public func placement(of tangible: TangibleID, at time: Seconds = .infinity) -> Placement? {
        placements.last { $0.tangible == tangible && $0.placedAt <= time }
    }
}
