// What happened to one tangible in a step: transitions and trace changes, each with a reason.

/// One typed event of a tangible (for logs, diagnostics and replay).
public enum TangibleEvent: Hashable, Sendable, Codable {
    case transition(from: TangibleStateName, to: TangibleStateName, reason: TransitionReason)
    case searchPhase(SearchPhase, reason: TransitionReason)
    case tracesAssigned([TraceID], reason: TransitionReason)
    case traceAdopted(TraceID, marker: Int)
    case traceReleased(TraceID, reason: ReleaseReason)
    case provenance(Provenance)
    case guessStood
    case checkRequested(request: UInt64, kind: VerificationNeed.Kind, hypotheses: Int)
    case checkAnswered(request: UInt64, result: VerificationOutcome.Result)
    /// A locate check found the sensor of a PERC that made one touch, but `poses` poses
    /// (another marker, or another lone touch) put it there within `locateAmbiguity`:
    /// light cannot tell them apart, so none is taken; the touches wait `recheckRejectedAfter`.
    case locateAmbiguous(request: UInt64, poses: Int)
    /// An event the PERC machine cannot get in `state` (the engine sends upkeep only to a
    /// tracked PERC, and searches only to one on the surface): a bug of the engine. It is
    /// ignored; the service logs it and counts it (`percbridge_engine_bugs_total`).
    case impossibleEvent(state: TangibleStateName, event: String)
}
