// The contract between the engine (MTKTangibles) and the light-check scheduler (LightCheck).

/// One way the engine could be right about a tangible: a pose, and where its light sensor
/// would then be on the surface.
public struct Hypothesis: Hashable, Sendable, Codable {
    public var id: Int
    public var pose: Pose
    /// Light-sensor position on the surface if this hypothesis holds (mm).
    public var sensorPosition: Vec2
    /// The trace ids this hypothesis assigns to the tangible (engine-defined ids).
    public var traces: [UInt64]

    public init(id: Int, pose: Pose, sensorPosition: Vec2, traces: [UInt64]) {
        self.id = id; self.pose = pose; self.sensorPosition = sensorPosition; self.traces = traces
    }
}

/// What the engine needs verified for one tangible. A need stays the same `request` until
/// the engine withdraws it (it is absent from a later step's needs) or an outcome arrives.
public struct VerificationNeed: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable {
        /// Which hypothesis is right (ambiguous triples, 2-trace tuples: hypotenuse 2, leg 4).
        case identify
        /// A resting tangible: is it still at its kept pose?
        case stationary
        /// A PERC that made one marker touch: where is its light sensor? The hypotheses are
        /// its poses with a marker on a lone touch, turned in small steps (a circle of
        /// sensor positions around each touch, one per marker). The scheduler searches those
        /// positions with discs (as a calibration does) and confirms the hypothesis nearest
        /// the sensor it found, or rejects them all when the sensor lies on none.
        case locate
    }
    public var tangible: TangibleID
    public var request: UInt64
    public var kind: Kind
    public var hypotheses: [Hypothesis]
    /// The tangible's footprint in its own frame (place with a hypothesis's pose).
    public var footprint: Footprint
    /// Surface velocity of the tangible's traces (mm/s); zero when still.
    public var velocity: Vec2
    public var isMoving: Bool
    /// An identify need of a PERC still searching: where its light sensor would be on the
    /// other candidates its traces make that the need does not offer (at most
    /// `maxOtherPlaces`): a triple of its time window that another PERC's check holds, a pair
    /// that waits. A flip another tangible's patch over one of them could have caused
    /// confirms none of the hypotheses (`LightCheckConfig.explainOtherPlaces`).
    public var otherPlaces: [Vec2]

    /// Bound on `otherPlaces` (the scheduler reads no more).
    public static let maxOtherPlaces = 24

    public init(tangible: TangibleID, request: UInt64, kind: Kind, hypotheses: [Hypothesis],
                footprint: Footprint, velocity: Vec2 = .zero, isMoving: Bool = false,
                otherPlaces: [Vec2] = []) {
        self.tangible = tangible; self.request = request; self.kind = kind; self.hypotheses = hypotheses
        self.footprint = footprint; self.velocity = velocity; self.isMoving = isMoving
        self.otherPlaces = otherPlaces
    }

    private enum CodingKeys: String, CodingKey {
        case tangible, request, kind, hypotheses, footprint, velocity, isMoving, otherPlaces
    }

    /// Needs written before `otherPlaces` existed read them as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(tangible: try c.decode(TangibleID.self, forKey: .tangible), request: try c.decode(UInt64.self, forKey: .request),
                  kind: try c.decode(Kind.self, forKey: .kind), hypotheses: try c.decode([Hypothesis].self, forKey: .hypotheses),
                  footprint: try c.decode(Footprint.self, forKey: .footprint), velocity: try c.decode(Vec2.self, forKey: .velocity),
                  isMoving: try c.decode(Bool.self, forKey: .isMoving),
                  otherPlaces: try c.decodeIfPresent([Vec2].self, forKey: .otherPlaces) ?? [])
    }
}

/// The scheduler's answer to a need; consumed by the engine on its next step.
public struct VerificationOutcome: Hashable, Sendable, Codable {
    public enum Result: Hashable, Sendable, Codable {
        /// This hypothesis is right (for `stationary`: the kept pose still holds).
        case confirmed(hypothesis: Int)
        /// None of the hypotheses held (for `stationary`: the check failed).
        case rejected
        /// The evidence did not decide it (misses, spontaneous flips, timeouts).
        case inconclusive
    }
    public var tangible: TangibleID
    public var request: UInt64
    public var result: Result
    /// Frame time at which it was decided.
    public var time: Seconds

    public init(tangible: TangibleID, request: UInt64, result: Result, time: Seconds) {
        self.tangible = tangible; self.request = request; self.result = result; self.time = time
    }
}
