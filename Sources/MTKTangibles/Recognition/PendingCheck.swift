// A light check the engine has asked for and not yet had answered.

/// One outstanding verification need of a tangible and the candidates behind its hypotheses
/// (`candidates[i]` is hypothesis `ids[i]`). Ids stay with their candidate while the request
/// runs, so a candidate that comes or goes does not restart the check (the scheduler keeps
/// the evidence gathered on the others).
struct PendingCheck: Hashable, Sendable {
    var request: UInt64
    var kind: VerificationNeed.Kind
    var candidates: [Candidate]
    var isMoving: Bool
    var velocity: Vec2
    /// Hypothesis id of each candidate, and the next id to give.
    var ids: [Int]
    var nextID: Int
    /// When none of its candidates was offered any more (a marker touch dropped out); nil
    /// while some are. The check waits `dropoutGrace` for the touch to come back.
    var orphanedSince: Seconds?
    /// Candidates the check has had, with their ids: one that comes back (a tuple at the
    /// edge of the tolerance) gets its id back, and with it the evidence on it.
    private var departed: [Departed] = []

    private struct Departed: Hashable, Sendable {
        var candidate: Candidate
        var id: Int
    }

    init(request: UInt64, kind: VerificationNeed.Kind, candidates: [Candidate], isMoving: Bool, velocity: Vec2) {
        self.request = request; self.kind = kind; self.candidates = candidates
        self.isMoving = isMoving; self.velocity = velocity
        ids = Array(candidates.indices); nextID = candidates.count
    }

    /// Same hypotheses (traces on markers) as `others`, in any pose: the request may stay.
    func sameSet(_ others: [Candidate]) -> Bool {
        candidates.count == others.count && zip(candidates, others).allSatisfy { $0.sameCandidate($1) }
    }

    /// How far (mm) a successor's pose may lie from its predecessor's.
    static let successorDistance = 3.0

    /// The candidate behind hypothesis `id`, if it is still in the check.
    func candidate(hypothesis id: Int) -> Candidate? {
        ids.firstIndex(of: id).map { candidates[$0] }
    }

    /// Takes `others` as the check's candidates: those already in it keep their ids, ones
    /// that were in it before get their id back, a successor or a triple grown from a
    /// tuple takes over its predecessor's id, others get fresh ids. Returns false (and
    /// changes nothing) when none of them was in it.
    mutating func carryOver(to others: [Candidate]) -> Bool {
        var newIDs: [Int?] = Array(repeating: nil, count: others.count)
        func taken(_ id: Int) -> Bool { newIDs.contains(id) }
        for (k, c) in others.enumerated() {
            if let i = candidates.firstIndex(where: { $0.sameCandidate(c) }), !taken(ids[i]) { newIDs[k] = ids[i] }
        }
        for (k, c) in others.enumerated() where newIDs[k] == nil {
            if let d = departed.last(where: { $0.candidate.sameCandidate(c) }), !taken(d.id) { newIDs[k] = d.id }
        }
        // A successor: a candidate that differs from one no longer offered in one trace only,
        // on the same markers and at the same pose (a marker's touch ended and came back as
        // a new trace), keeps that one's id and with it the answers gathered on it. Likewise
        // a triple grown from a tuple no longer offered (its third touch came): the same
        // traces on the same markers, one more.
        for (k, c) in others.enumerated() where newIDs[k] == nil {
            guard let i = candidates.indices.first(where: { i in
                let o = candidates[i]
                guard !taken(ids[i]), !others.contains(where: { $0.sameCandidate(o) }) else { return false }
                let samePose = o.pose.position.distance(to: c.pose.position) <= Self.successorDistance
                switch (o.isTuple, c.isTuple) {
                case (true, false): return (0..<3).allSatisfy { o.traces[$0] == nil || o.traces[$0] == c.traces[$0] }
                case (false, false): return samePose && Set(c.traceSet).intersection(o.traceSet).count == 2
                case (true, true):
                    // A tuple keeps its markers: the one trace it kept stays on its marker
                    // (and lies still: two traces of a moving PERC say too little).
                    return samePose && !o.isMoving && !c.isMoving
                        && (0..<3).allSatisfy { (o.traces[$0] == nil) == (c.traces[$0] == nil) }
                        && (0..<3).filter { o.traces[$0] != nil && o.traces[$0] == c.traces[$0] }.count == 1
                case (false, true): return false
                }
            }) else { continue }
            newIDs[k] = ids[i]
        }
        guard newIDs.contains(where: { $0 != nil }) else { return false }
        var next = nextID
        let assigned = newIDs.map { id -> Int in
            if let id { return id }
            defer { next += 1 }
            return next
        }
        // Remember every candidate under its id, so that one that leaves and comes back
        // (a tuple at the edge of the tolerance, a tuple outgrown by a triple that breaks
        // up again) finds its evidence again.
        for (c, id) in Array(zip(candidates, ids)) + Array(zip(others, assigned)) {
            departed.removeAll { $0.candidate.sameCandidate(c) }
            departed.append(Departed(candidate: c, id: id))
        }
        if departed.count > 32 { departed.removeFirst(departed.count - 32) }
        candidates = others; ids = assigned; nextID = next
        orphanedSince = nil
        return true
    }
}
