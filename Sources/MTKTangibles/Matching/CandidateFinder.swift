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
        // Locals, not `scene.…` inside the closures: no exclusivity checks in the hot loop.
        let positions = scene.positions, blocked = scene.blocked, originIndex = scene.originIndex, grid = scene.grid
        for a in positions.indices where !blocked[a] {
            nb.removeAll(keepingCapacity: true)
            let pa = positions[a], oa = originIndex[a]
            grid.forEachNeighbour(of: pa, radius: reach) { i in
                if i > a, !blocked[i], originIndex[i] == oa, positions[i].distance(to: pa) >= minSide { nb.append(i) }
            }
            guard nb.count >= 2 else { continue }
            for x in 0..<(nb.count - 1) {
                for y in (x + 1)..<nb.count {
                    let b = nb[x], c = nb[y]
                    let dbc = positions[b].distance(to: positions[c])
                    guard dbc <= reach, dbc >= minSide else { continue }
                    guard let f = pattern.fit(pa, positions[b], positions[c], tolerance: tolerance) else { continue }
                    let idx = [a, b, c]
                    let traces: [TraceID?] = TrianglePattern.perms[f.perm].map { scene.ids[idx[$0]] }
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
        let positions = scene.positions, blocked = scene.blocked, originIndex = scene.originIndex, grid = scene.grid
        let ids = scene.ids
        let minSide = max(0, pattern.shortestSide - tolerance)
        for a in positions.indices where !blocked[a] {
            let pa = positions[a], oa = originIndex[a]
            nb.removeAll(keepingCapacity: true)
            grid.forEachNeighbour(of: pa, radius: reach) { i in
                if i > a, !blocked[i], originIndex[i] == oa, positions[i].distance(to: pa) >= minSide { nb.append(i) }
            }
            for b in nb {
                for (markers, pose) in pattern.tuplePoses(pa, positions[b], tolerance: tolerance) {
                    var traces: [TraceID?] = [nil, nil, nil]
                    traces[markers.0] = ids[a]; traces[markers.1] = ids[b]
                    let err = abs(pa.distance(to: positions[b]) - pattern.side(markers.0, markers.1))
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
               let p2 = table.position(traces[2], at: t), pattern.fit(p0, p1, p2).residual > tolerance * historySlack {
                return nil
            }
            k += 1
        }
        return shared
    }
}
