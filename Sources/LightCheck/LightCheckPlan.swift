// What the scheduler returns each frame: the overlay to draw and the decisions made.
import MTKTangibles

/// The scheduler's output for one frame.
public struct LightCheckPlan: Hashable, Sendable {
    /// Everything to draw from the next frame on. Its id changes only when the patches do;
    /// an app reports it back with ``PresentedOverlay``.
    public var overlay: Overlay
    /// Whether `overlay` differs from the previous frame's.
    public var overlayChanged: Bool
    /// Decided needs; give them to the engine's next step.
    public var outcomes: [VerificationOutcome]
    /// Finished calibrations.
    public var calibrations: [CalibrationResult]

    public init(overlay: Overlay, overlayChanged: Bool, outcomes: [VerificationOutcome], calibrations: [CalibrationResult]) {
        self.overlay = overlay; self.overlayChanged = overlayChanged
        self.outcomes = outcomes; self.calibrations = calibrations
    }
}

/// Counters for diagnostics and metrics; they only grow.
public struct LightCheckDiagnostics: Hashable, Sendable, Codable {
    /// Light flips no round could have caused (nothing showing, or sooner than any answer).
    public var spontaneousFlips: [TangibleID: Int] = [:]
    /// Answers that arrived inside a round's window.
    public var answers = 0
    /// Rounds that ended at their deadline without a flip.
    public var silentRounds = 0
    /// Flips that answered a silent round after its deadline, told by the sensor's clock
    /// (`LightCheckConfig.sensorClock`).
    public var lateAnswers = 0
    /// Needs the engine withdrew before an outcome.
    public var withdrawnNeeds = 0
    /// Rounds whose presentation was assumed because no report came in time.
    public var assumedPresentations = 0
    /// Rejected input, by reason (see ``BadInput``).
    public var badInput: [BadInput: Int] = [:]

    public enum BadInput: String, Hashable, Sendable, Codable, CaseIterable {
        /// A light event of a tangible that never had a need or calibration.
        case unknownTangibleEvent
        /// A light value other than 0 or 1.
        case badLightValue
        /// A presented report naming an overlay this scheduler never issued.
        case unknownOverlay
        /// A hypothesis with a non-finite sensor position, or a need without hypotheses.
        case badHypothesis
        /// A frame time earlier than the previous one, or not finite.
        case timeWentBack
        /// A second need for a tangible that already has one (it waits its turn).
        case concurrentNeed
    }

    public init() {}

    mutating func count(_ b: BadInput) { badInput[b, default: 0] += 1 }
}
