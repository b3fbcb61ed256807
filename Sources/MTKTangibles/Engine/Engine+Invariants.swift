// Debug-build checks of the engine's invariants after every step.

extension Engine {
    /// Violations of the engine's invariants, empty when all hold: a trace is held by at
    /// most one tangible; held traces are alive and of the track's one origin; only
    /// tracked/recognized tangibles hold traces; poses are finite.
    func invariantViolations(_ scene: FrameScene) -> [String] {
        var problems: [String] = []
        var seen: [TraceID: TangibleID] = [:]
        for s in slots {
            let id = s.id
            let state = s.stateName
            if let t = s.track {
                if t.traces.isEmpty { problems.append("tangible \(id) is \(state) with no trace") }
                if !(t.pose.position.isFinite && t.pose.angle.isFinite) { problems.append("tangible \(id) has a non-finite pose") }
                for tr in t.traces {
                    if let other = seen[tr] { problems.append("trace \(tr) held by \(other) and \(id)") }
                    seen[tr] = id
                    if !table.isAlive(tr) { problems.append("tangible \(id) holds ended trace \(tr)") }
                    if table.summary(tr)?.origin != t.origin { problems.append("tangible \(id) mixes input origins") }
                    if scene.holder(of: tr) != id { problems.append("scene does not mark trace \(tr) as held by \(id)") }
                }
            } else if state == .tracked || state == .recognized {
                problems.append("tangible \(id) is \(state) without a track")
            }
        }
        return problems
    }

    func checkInvariants(_ scene: FrameScene) {
        let problems = invariantViolations(scene)
        assert(problems.isEmpty, "engine invariant violated: \(problems.joined(separator: "; "))")
    }
}
