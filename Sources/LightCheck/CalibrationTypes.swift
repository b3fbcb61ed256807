// Calibration API values: what to calibrate, its settings, and the result the CLI shows.
import MTKTangibles

/// Settings of the light-sensor offset calibration (``LightCheckConfig/calibration``).
public struct CalibrationSettings: Hashable, Sendable, Codable {
    /// Spacing of the grid of possible sensor positions over the footprint.
    public var gridSpacing: Double = 1.0
    /// The result's confidence is the posterior mass within this distance of the estimate.
    public var tolerance: Double = 3.0
    /// Stop when the confidence reaches this.
    public var targetConfidence: Double = 0.97
    /// Stop after this many rounds (with the confidence reached so far).
    public var maxRounds: Int = 60
    /// Smallest probe disc.
    public var minProbeRadius: Double = 2.0
    /// How far a sensor may sit from a patch edge and still be counted in or out for sure:
    /// the pose's and the drawing's error.
    public var edgeBlur: Double = 0.75
    /// The edge blur the choice of the next disc plans with (mm; 0: `edgeBlur`): wider than
    /// the one rounds are weighed with, the search prefers discs whose edges pass clear of the
    /// cells in play. A locate's cells are computed from a jittered touch; a disc centred on
    /// the touch whose edge ran 0.5 mm beyond the outermost circle left the sensor on its edge
    /// and unanswered, twice, and the locate rejected the PERC's own touch (`bench accuracy
    /// --seed 2 --show 8341`). Read as 0 when missing, so recordings replay as they ran.
    public var planningBlur: Double = 0

    public init() {}

    /// The defaults of `LightCheckConfig.locate`.
    public static var locateDefaults: CalibrationSettings {
        var s = CalibrationSettings()
        s.tolerance = 1.5
        s.targetConfidence = 0.95
        s.maxRounds = 24
        s.planningBlur = 1.2
        return s
    }

    public init(from decoder: any Decoder) throws { try self.init(from: decoder, defaults: CalibrationSettings()) }

    /// Decodes the keys present over `defaults` (`LightCheckConfig.locate` has its own).
    init(from decoder: any Decoder, defaults d: CalibrationSettings) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        gridSpacing = try c.decodeIfPresent(Double.self, forKey: .gridSpacing) ?? d.gridSpacing
        tolerance = try c.decodeIfPresent(Double.self, forKey: .tolerance) ?? d.tolerance
        targetConfidence = try c.decodeIfPresent(Double.self, forKey: .targetConfidence) ?? d.targetConfidence
        maxRounds = try c.decodeIfPresent(Int.self, forKey: .maxRounds) ?? d.maxRounds
        minProbeRadius = try c.decodeIfPresent(Double.self, forKey: .minProbeRadius) ?? d.minProbeRadius
        edgeBlur = try c.decodeIfPresent(Double.self, forKey: .edgeBlur) ?? d.edgeBlur
        planningBlur = try c.decodeIfPresent(Double.self, forKey: .planningBlur) ?? 0
    }

    var validationProblem: String? {
        if !(gridSpacing >= 0.25 && gridSpacing <= 10) { return "calibration.gridSpacing must lie in [0.25, 10] mm" }
        if !(tolerance > 0) { return "calibration.tolerance must be positive" }
        if !(targetConfidence > 0 && targetConfidence < 1) { return "calibration.targetConfidence must lie in (0, 1)" }
        if maxRounds < 1 { return "calibration.maxRounds must be at least 1" }
        if !(minProbeRadius > 0) || !(edgeBlur >= 0) { return "calibration.minProbeRadius must be positive, edgeBlur non-negative" }
        if !(planningBlur >= 0 && planningBlur <= 10) { return "calibration.planningBlur must lie in [0, 10] mm" }
        return nil
    }
}

/// Find the light-sensor offset of a tangible that lies still at `pose`.
public struct CalibrationRequest: Hashable, Sendable, Codable {
    public var tangible: TangibleID
    /// Where the tangible lies (from its traces); must not change during the calibration.
    public var pose: Pose
    /// The region searched, in the tangible's own frame.
    public var footprint: Footprint

    public init(tangible: TangibleID, pose: Pose, footprint: Footprint) {
        self.tangible = tangible; self.pose = pose; self.footprint = footprint
    }
}

/// The answer of a calibration.
public struct CalibrationResult: Hashable, Sendable, Codable {
    public enum Status: String, Hashable, Sendable, Codable {
        /// The confidence reached the target.
        case found
        /// The round budget ran out first; `offset` is the best estimate, with its confidence.
        case budgetExhausted
        /// Cancelled, or the request could not be used (empty footprint, bad pose).
        case cancelled
    }
    public var tangible: TangibleID
    public var status: Status
    /// Light-sensor offset in the tangible's own frame (mm); nil when cancelled.
    public var offset: Vec2?
    /// The same point on the surface.
    public var surfacePosition: Vec2?
    /// Posterior probability that the true offset lies within `tolerance` of `offset`.
    public var confidence: Double
    public var tolerance: Double
    public var rounds: Int
    public var time: Seconds

    public init(tangible: TangibleID, status: Status, offset: Vec2?, surfacePosition: Vec2?,
                confidence: Double, tolerance: Double, rounds: Int, time: Seconds) {
        self.tangible = tangible; self.status = status; self.offset = offset
        self.surfacePosition = surfacePosition; self.confidence = confidence
        self.tolerance = tolerance; self.rounds = rounds; self.time = time
    }
}
