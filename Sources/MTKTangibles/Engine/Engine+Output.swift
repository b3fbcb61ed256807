// Step (6) of the engine: assembling the output of a step.

extension Engine {
    func output(_ frame: Frame, scene: FrameScene, events: [EngineEvent]) -> EngineOutput {
        var tangibles: [TangibleReport] = []
        var needs: [VerificationNeed] = []
        tangibles.reserveCapacity(slots.count)
        // By index, not `for s in slots`: a slot copy retains every buffer it holds.
        for i in slots.indices {
            var r = TangibleReport(id: slots[i].id, name: slots[i].definition.name, kind: slots[i].definition.kind,
                                   state: slots[i].stateName, pose: nil, provenance: nil, traces: slots[i].held,
                                   tolerance: slots[i].jitter.tolerance(config), searchPhase: nil,
                                   lightValue: slots[i].lightValue, battery: slots[i].battery)
            if slots[i].perc != nil {
                if let (pose, prov) = slots[i].perc!.pose { r.pose = pose; r.provenance = prov }
                r.searchPhase = slots[i].perc!.searchPhase
                if let n = slots[i].perc!.need { needs.append(n) }
            } else if let t = slots[i].puc?.track {
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
