// Step (5) of the engine: offering candidates to the tangibles that search for their traces.

extension Engine {
    private enum Want { case none, window(Seconds), lightOnly, resting(Pose, InputOrigin, Provenance), puc }

    private func want(_ slot: TangibleSlot) -> Want {
        switch slot.machine {
        case .puc(let p): return p.track == nil ? .puc : .none
        case .perc(let m):
            if let f = m.windowOpenedAt { return .window(f) }
            switch m.state {
            case .onSurface: return .lightOnly
            case .resting(let r): return .resting(r.pose, r.origin, r.provenanceBefore)
            case .notInRange, .inRange, .tracked: return .none
            }
        }
    }

    mutating func search(_ scene: inout FrameScene, emit: ([TangibleEvent], TangibleID) -> Void) {
        var wants: [(TangibleID, Want)] = []
        for id in order {
            let w = want(slots[id]!)
            if case .none = w { continue }
            wants.append((id, w))
        }
        guard !wants.isEmpty else { return }

        // Triples (and tuples) per marker pattern, found once with the loosest tolerance of
        // the tangibles that share it, then filtered per tangible.
        var tolByKey: [[Int64]: Double] = [:]
        for (id, _) in wants {
            let s = slots[id]!
            tolByKey[s.pattern.key] = max(tolByKey[s.pattern.key] ?? 0, s.jitter.tolerance(config))
        }
        var triplesByKey: [[Int64]: [Candidate]] = [:]
        var tuplesByKey: [[Int64]: [Candidate]] = [:]
        func triples(_ s: TangibleSlot, _ scene: inout FrameScene) -> [Candidate] {
            if let c = triplesByKey[s.pattern.key] { return c }
            let c = finder.triples(s.pattern, tolerance: tolByKey[s.pattern.key]!, scene: &scene, table: table)
            triplesByKey[s.pattern.key] = c
            return c
        }
        func tuples(_ s: TangibleSlot, _ scene: inout FrameScene) -> [Candidate] {
            if let c = tuplesByKey[s.pattern.key] { return c }
            let c = finder.tuples(s.pattern, tolerance: tolByKey[s.pattern.key]!, scene: &scene, table: table)
            tuplesByKey[s.pattern.key] = c
            return c
        }

        // Window triples, and which traces more than one window-phase tangible could take.
        let pendingGuessers = Set(order.filter { id in
            if case .perc(let m) = slots[id]!.machine { return m.hasPendingGuess }
            return false
        })
        var windowTriples: [TangibleID: [Candidate]] = [:]
        var claimants: [TraceID: Set<TangibleID>] = [:]
        for (id, w) in wants {
            guard case .window(let f) = w else { continue }
            let s = slots[id]!
            let tol = s.jitter.tolerance(config)
            let list = triples(s, &scene).filter { c in
                c.residual <= tol && c.earliestBegin >= f - config.timeWindow && c.latestBegin <= f + config.timeWindow
                    && c.traces.allSatisfy { tr in
                        guard let h = scene.holder(of: tr!) else { return true }
                        return h == id || pendingGuessers.contains(h)
                    }
            }
            windowTriples[id] = list
            for c in list { for tr in c.traceSet { claimants[tr, default: []].insert(id) } }
        }

        for (id, w) in wants {
            var slot = slots[id]!
            let tol = slot.jitter.tolerance(config)
            func open(_ c: Candidate, _ scene: FrameScene) -> Bool {
                c.residual <= tol && c.traces.allSatisfy { tr in
                    guard let tr else { return true }
                    let h = scene.holder(of: tr)
                    return h == nil || h == id
                }
            }
            var obs = SearchObservation()
            switch w {
            case .none:
                continue
            case .window:
                obs.windowTriples = (windowTriples[id] ?? []).filter { c in
                    c.traces.allSatisfy { tr in
                        guard let h = scene.holder(of: tr!) else { return true }
                        return h == id || pendingGuessers.contains(h) || (slots[h].map { s in
                            if case .perc(let m) = s.machine { return m.hasPendingGuess }
                            return false
                        } ?? false)
                    }
                }
                for c in obs.windowTriples where c.traceSet.contains(where: { (claimants[$0] ?? []).contains { $0 != id } }) {
                    obs.contested.insert(c.traceSet)
                }
                if case .perc(let m) = slot.machine, m.searchPhase == .lightOnly {
                    obs.triples = triples(slot, &scene).filter { open($0, scene) }
                    obs.tuples = tuples(slot, &scene).filter { open($0, scene) }
                }
            case .lightOnly:
                obs.triples = triples(slot, &scene).filter { open($0, scene) }
                obs.tuples = tuples(slot, &scene).filter { open($0, scene) }
            case .resting(let pose, let origin, let provenance):
                let maintainer = TrackMaintainer(config: config, pattern: slot.pattern, tolerance: tol, owner: id)
                obs.nearPose = maintainer.recover(around: pose, origin: origin, provenance: provenance, since: scene.now,
                                                  scene: scene, table: table)
            case .puc:
                obs.triples = triples(slot, &scene).filter { open($0, scene) }
            }
            let before = slot.held
            switch slot.machine {
            case .perc(var m):
                var acts = m.handle(.search(obs), at: scene.now)
                // The window may have expired into lightOnly in this very event: search again
                // so the phase change and its first light check happen in the same frame.
                if m.searchPhase == .lightOnly, obs.triples.isEmpty, obs.tuples.isEmpty, case .window = w {
                    var again = SearchObservation()
                    again.triples = triples(slot, &scene).filter { open($0, scene) }
                    again.tuples = tuples(slot, &scene).filter { open($0, scene) }
                    if !again.triples.isEmpty || !again.tuples.isEmpty { acts += m.handle(.search(again), at: scene.now) }
                }
                slot.machine = .perc(m)
                emit(acts, id)
            case .puc(var p):
                emit(p.handle(.search(obs), at: scene.now), id)
                slot.machine = .puc(p)
            }
            sync(&scene, id, before, slot.held)
            slots[id] = slot
        }
    }
}
