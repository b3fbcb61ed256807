// Finds the fitting triples and two-trace tuples of a marker pattern through the spatial grid.

/// Enumerates candidates per marker pattern over one frame's scene. Only traces of one
/// input origin are combined; each triple is found once (from its lowest-index trace).
/// Triples must also have fitted over their recent shared history (a gap the thesis names
/// in 3.3.1: fingers that form the pattern for a moment are not a tangible).
struct CandidateFinder {
    var historyWindow: Seconds
    var historySamples: Int
    var historySlack: Double

    func triples(_ pattern: TrianglePattern, tolerance: Double, scene: inout FrameScene, table: TraceTable) -> [Candidate] {
        let reach = pattern.longestSide + 2 * tolerance
        let minSide = max(0, pattern.shortestSide - 2 * tolerance)
        var out: [Candidate] = []
        var nb: [Int] = []
        for a in scene.ids.indices where !scene.blocked[a] {
            nb.removeAll(keepingCapacity: true)
            let pa = scene.positions[a], oa = scene.originIndex[a]
            scene.grid.forEachNeighbour(of: pa, radius: reach) { i in
                if i > a, !scene.blocked[i], scene.originIndex[i] == oa, scene.positions[i].distance(to: pa) >= minSide { nb.append(i) }
            }
            guard nb.count >= 2 else { continue }
            for x in 0..<(nb.count - 1) {
                for y in (x + 1)..<nb.count {
                    let b = nb[x], c = nb[y]
                    let dbc = scene.positions[b].distance(to: scene.positions[c])
                    guard dbc <= reach, dbc >= minSide else { continue }
                    let idx = [a, b, c]
                    guard let f = pattern.fit([pa, scene.positions[b], scene.positions[c]], tolerance: tolerance) else { continue }
                    let traces: [TraceID?] = f.assignment.map { scene.ids[idx[$0]] }
                    guard let history = fittedHistory(pattern, traces.map { $0! }, tolerance: tolerance, table: table) else { continue }
                    out.append(candidate(traces, idx: idx, pose: f.pose, residual: f.residual, history: history, scene: &scene, table: table))
                }
            }
        }
        return out
    }

    func tuples(_ pattern: TrianglePattern, tolerance: Double, scene: inout FrameScene, table: TraceTable) -> [Candidate] {
        let reach = pattern.longestSide + tolerance
        var out: [Candidate] = []
        var nb: [Int] = []
        for a in scene.ids.indices where !scene.blocked[a] {
            let pa = scene.positions[a], oa = scene.originIndex[a]
            nb.removeAll(keepingCapacity: true)
            scene.grid.forEachNeighbour(of: pa, radius: reach) { i in
                if i > a, !scene.blocked[i], scene.originIndex[i] == oa { nb.append(i) }
            }
            for b in nb {
                for (markers, pose) in pattern.tuplePoses(pa, scene.positions[b], tolerance: tolerance) {
                    var traces: [TraceID?] = [nil, nil, nil]
                    traces[markers.0] = scene.ids[a]; traces[markers.1] = scene.ids[b]
                    let err = abs(pa.distance(to: scene.positions[b]) - pattern.side(markers.0, markers.1))
                    out.append(candidate(traces, idx: [a, b], pose: pose, residual: err, history: 0, scene: &scene, table: table))
                }
            }
        }
        return out
    }

    private func candidate(_ traces: [TraceID?], idx: [Int], pose: Pose, residual: Double, history: Seconds,
                           scene: inout FrameScene, table: TraceTable) -> Candidate {
        var moving = false
        var v = Vec2.zero
        for i in idx {
            if !scene.isStationary(i, table: table) { moving = true }
            v += scene.velocity(i, table: table)
        }
        var latest = -Double.infinity, earliest = Double.infinity
        for i in idx { latest = max(latest, scene.began[i]); earliest = min(earliest, scene.began[i]) }
        return Candidate(traces: traces, pose: pose, residual: residual, origin: scene.origins[scene.originIndex[idx[0]]],
                         latestBegin: latest, earliestBegin: earliest, isMoving: moving,
                         velocity: v / Double(idx.count), fittedHistory: history)
    }

    /// How long (up to the history window) the traces, on these markers, have fitted; nil
    /// when they failed to fit at one of the sampled past frames.
    func fittedHistory(_ pattern: TrianglePattern, _ traces: [TraceID], tolerance: Double, table: TraceTable) -> Seconds? {
        let now = table.now
        var start = -Double.infinity
        for t in traces { start = max(start, table.beganAt(t) ?? now) }
        let shared = min(now - start, historyWindow)
        guard shared > 0, historySamples > 0 else { return max(0, shared) }
        let step = historyWindow / Double(historySamples)
        var k = 1
        while Double(k) * step <= shared + 1e-9 {
            let t = now - Double(k) * step
            if let p0 = table.position(traces[0], at: t), let p1 = table.position(traces[1], at: t),
               let p2 = table.position(traces[2], at: t), pattern.fit([p0, p1, p2]).residual > tolerance * historySlack {
                return nil
            }
            k += 1
        }
        return shared
    }
}
