// Step (6) of the engine: assembling the output of a step.

extension Engine {
    func output(_ frame: Frame, scene: FrameScene, events: [EngineEvent]) -> EngineOutput {
        var tangibles: [TangibleReport] = []
        var needs: [VerificationNeed] = []
        tangibles.reserveCapacity(slots.count)
        for s in slots {
            var r = TangibleReport(id: s.id, name: s.definition.name, kind: s.definition.kind, state: s.stateName,
                                   pose: nil, provenance: nil, traces: s.held, tolerance: s.jitter.tolerance(config),
                                   searchPhase: nil, lightValue: s.lightValue, battery: s.battery)
            if let m = s.perc {
                if let (pose, prov) = m.pose { r.pose = pose; r.provenance = prov }
                r.searchPhase = m.searchPhase
                if let n = m.need { needs.append(n) }
            } else if let t = s.puc?.track {
                r.pose = t.pose; r.provenance = t.provenance
            }
            tangibles.append(r)
        }
        var free: [FreeTrace] = []
        for i in table.live.indices {
            let s = table.live[i].summary
            if let j = scene.slot[s.id], scene.holder[j] != nil { continue }
            free.append(FreeTrace(id: s.id, origin: s.origin, position: s.lastPosition, phase: s.lastPhase, beganAt: s.beganAt))
        }
        return EngineOutput(frame: frame.number, time: frame.time, tangibles: tangibles, freeTraces: free,
                            needs: needs, events: events, counters: counters)
    }
}
