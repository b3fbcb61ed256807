// Step (6) of the engine: assembling the output of a step.

extension Engine {
    func output(_ frame: Frame, scene: FrameScene, events: [EngineEvent]) -> EngineOutput {
        var tangibles: [TangibleReport] = []
        var needs: [VerificationNeed] = []
        tangibles.reserveCapacity(order.count)
        for id in order {
            let s = slots[id]!
            var r = TangibleReport(id: id, name: s.definition.name, kind: s.definition.kind, state: s.stateName,
                                   pose: nil, provenance: nil, traces: s.held, tolerance: s.jitter.tolerance(config),
                                   searchPhase: nil, lightValue: s.lightValue, battery: s.battery)
            switch s.machine {
            case .perc(let m):
                if let (pose, prov) = m.pose { r.pose = pose; r.provenance = prov }
                r.searchPhase = m.searchPhase
                if let n = m.need { needs.append(n) }
            case .puc(let p):
                if let t = p.track { r.pose = t.pose; r.provenance = t.provenance }
            }
            tangibles.append(r)
        }
        var free: [FreeTrace] = []
        for rec in table.live {
            let s = rec.summary
            if let i = scene.slot[s.id], scene.holder[i] != nil { continue }
            free.append(FreeTrace(id: s.id, origin: s.origin, position: s.lastPosition, phase: s.lastPhase, beganAt: s.beganAt))
        }
        return EngineOutput(frame: frame.number, time: frame.time, tangibles: tangibles, freeTraces: free,
                            needs: needs, events: events, counters: counters)
    }
}
