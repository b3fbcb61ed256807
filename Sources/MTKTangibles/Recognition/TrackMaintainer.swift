// Per-frame upkeep of a held track, shared by PUCs and PERCs: lost traces, deformation, pose, recovery.

/// Thesis 3.3.1 Recovery for one tracked tangible and one frame:
/// 1. traces that ended are let go;
/// 2. deformation check: when the held traces no longer fit, the odd one goes; of two that
///    disagree, the stationary one goes when the other moves (ghost-touch rule), both when
///    both move;
/// 3. the pose follows three or two traces; a lone trace keeps the pose and is dropped when
///    it drifts away from its marker;
/// 4. missing markers are refilled with free traces near their expected positions when the
///    set still fits — only traces that began after the tangible was recognised (or came
///    to rest): a marker that comes back is a new touch; a finger that was already there
///    is not.
struct TrackMaintainer {
    let config: EngineConfig
    let pattern: TrianglePattern
    let tolerance: Double
    let owner: TangibleID

    func update(_ track: Track, scene: inout FrameScene, table: TraceTable) -> TrackUpdate {
        // The common case, without allocating: three live traces that still fit; only the
        // pose moves (the same result as the full path below, which would change nothing else).
        if let a = track.slots[0], let b = track.slots[1], let c = track.slots[2],
           let ia = scene.slot[a], let ib = scene.slot[b], let ic = scene.slot[c],
           scene.alive[ia], scene.alive[ib], scene.alive[ic] {
            let f = pattern.fit(scene.positions[ia], scene.positions[ib], scene.positions[ic])
            if f.residual <= tolerance * config.deformationSlack {
                var u = TrackUpdate(track: track)
                u.track.pose = f.pose
                u.residualRMS = f.rms
                return u
            }
        }
        var u = TrackUpdate(track: track)
        for m in 0..<3 {
            if let id = u.track.slots[m], !table.isAlive(id) { release(m, .ended, &u) }
        }
        checkDeformation(&u, scene: &scene, table: table)
        updatePose(&u, table: table)
        if !u.isEmpty && u.track.traces.count < 3 { recover(&u, scene: scene, table: table, notBefore: track.since) }
        return u
    }

    /// Recovery around a known pose with no held trace (a resting PERC): at least two free
    /// traces must sit on expected marker positions and fit; nil otherwise.
    func recover(around pose: Pose, origin: InputOrigin, provenance: Provenance, since: Seconds,
                 scene: FrameScene, table: TraceTable) -> TrackUpdate? {
        var u = TrackUpdate(track: Track(slots: [nil, nil, nil], pose: pose, origin: origin, provenance: provenance, since: since))
        recover(&u, scene: scene, table: table, notBefore: since)
        guard u.track.traces.count >= 2 else { return nil }
        updatePose(&u, table: table)
        return u
    }

    private func release(_ m: Int, _ reason: ReleaseReason, _ u: inout TrackUpdate) {
        guard let id = u.track.slots[m] else { return }
        u.track.slots[m] = nil
        u.events.append(.traceReleased(id, reason: reason))
    }

    private func stationary(_ id: TraceID, _ scene: inout FrameScene, _ table: TraceTable) -> Bool {
        guard let i = scene.slot[id] else { return true }
        return scene.isStationary(i, table: table)
    }

    private func checkDeformation(_ u: inout TrackUpdate, scene: inout FrameScene, table: TraceTable) {
        let limit = tolerance * config.deformationSlack
        let held = (0..<3).filter { u.track.slots[$0] != nil }
        func pos(_ m: Int) -> Vec2 { scene.positions[scene.slot[u.track.slots[m]!]!] }
        guard held.allSatisfy({ scene.slot[u.track.slots[$0]!] != nil }) else { return }
        if held.count == 3 {
            let q = [pos(0), pos(1), pos(2)]
            guard pattern.fit(q).residual > limit else { return }
            // Which one marker, left out, leaves a pair that still fits?
            var odd: [Int] = []
            for k in 0..<3 {
                let i = (k + 1) % 3, j = (k + 2) % 3
                if abs(q[i].distance(to: q[j]) - pattern.side(i, j)) <= limit { odd.append(k) }
            }
            let moving = (0..<3).map { !stationary(u.track.slots[$0]!, &scene, table) }
            if odd.isEmpty {
                for m in 0..<3 { release(m, .deformed, &u) }
                return
            }
            // Ghost rule first: a stationary trace among moving ones is the ghost.
            if let g = odd.first(where: { !moving[$0] && moving.filter { $0 }.count >= 1 }) {
                release(g, .ghostTouch, &u)
                return
            }
            // Otherwise the trace farthest from where the other two put its marker.
            var worst = odd[0], worstD = -1.0
            for k in odd {
                let i = (k + 1) % 3, j = (k + 2) % 3
                let pose = pattern.fit(q[i], onMarker: i, q[j], onMarker: j).pose
                let d = pose.apply(pattern.markers[k]).distance(to: q[k])
                if d > worstD { worst = k; worstD = d }
            }
            release(worst, .deformed, &u)
        } else if held.count == 2 {
            let i = held[0], j = held[1]
            guard abs(pos(i).distance(to: pos(j)) - pattern.side(i, j)) > limit else { return }
            let si = stationary(u.track.slots[i]!, &scene, table), sj = stationary(u.track.slots[j]!, &scene, table)
            if si && !sj { release(i, .ghostTouch, &u) } else if sj && !si { release(j, .ghostTouch, &u) } else {
                release(i, .deformed, &u); release(j, .deformed, &u)
            }
        }
    }

    private func updatePose(_ u: inout TrackUpdate, table: TraceTable) {
        let held = (0..<3).filter { u.track.slots[$0] != nil }
        let q = held.map { table.position(u.track.slots[$0]!)! }
        switch held.count {
        case 3:
            let f = pattern.fit(q[0], q[1], q[2])
            u.track.pose = f.pose
            u.residualRMS = f.rms
        case 2:
            u.track.pose = pattern.fit(q[0], onMarker: held[0], q[1], onMarker: held[1]).pose
        case 1:
            let m = held[0]
            if u.track.pose.apply(pattern.markers[m]).distance(to: q[0]) > config.driftLimit { release(m, .driftedAway, &u) }
        default:
            break
        }
    }

    private func recover(_ u: inout TrackUpdate, scene: FrameScene, table: TraceTable, notBefore: Seconds) {
        var adopted: [(Int, TraceID)] = []
        for m in 0..<3 where u.track.slots[m] == nil {
            let expected = u.track.pose.apply(pattern.markers[m])
            guard let id = scene.nearestFree(to: expected, radius: config.recoveryRadius, origin: u.track.origin,
                                             owner: owner, excluding: u.track.traces + adopted.map(\.1),
                                             notBefore: notBefore) else { continue }
            adopted.append((m, id))
        }
        guard !adopted.isEmpty else { return }
        var trial = u.track.slots
        for (m, id) in adopted { trial[m] = id }
        let held = (0..<3).filter { trial[$0] != nil }
        let q = held.map { table.position(trial[$0]!)! }
        let fits: Bool
        if held.count == 3 {
            fits = pattern.fit(q).residual <= tolerance
        } else if held.count == 2 {
            fits = abs(q[0].distance(to: q[1]) - pattern.side(held[0], held[1])) <= tolerance
        } else {
            fits = false
        }
        guard fits else { return }
        for (m, id) in adopted {
            u.track.slots[m] = id
            u.events.append(.traceAdopted(id, marker: m))
        }
        updatePose(&u, table: table)
    }
}
