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
}
