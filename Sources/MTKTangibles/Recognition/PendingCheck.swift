// A light check the engine has asked for and not yet had answered.

/// One outstanding verification need of a tangible and the candidates behind its hypotheses
/// (`candidates[i]` is hypothesis i).
struct PendingCheck: Hashable, Sendable {
    var request: UInt64
    var kind: VerificationNeed.Kind
    var candidates: [Candidate]
    var isMoving: Bool
    var velocity: Vec2

    /// Same hypotheses (traces on markers) as `others`, in any pose: the request may stay.
    func sameSet(_ others: [Candidate]) -> Bool {
        candidates.count == others.count && zip(candidates, others).allSatisfy { $0.sameCandidate($1) }
    }
}
