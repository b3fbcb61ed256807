// Step (6) of the engine: assembling the output of a step.

extension Engine {
    func output(_ frame: Frame, scene: FrameScene, events: [EngineEvent]) -> EngineOutput {
        var tangibles: [TangibleReport] = []
        var needs: [VerificationNeed] = []
        tangibles.reserveCapacity(slots.count)
        // By index, not `for s in slots`: a slot copy retains every buffer it holds.
        for i in slots.indices {
            var r = TangibleReport(id: slots[i].id, name: slots[i].name, kind: slots[i].kind,
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
        free.reserveCapacity(table.live.count)
        // The scene's arrays are parallel to the table's live records: no id lookups, and
        // fields read in place (a summary copy moved ~150 bytes and retained its strings).
        for i in table.live.indices where scene.holder[i] == nil {
            free.append(FreeTrace(id: table.live[i].summary.id, origin: table.live[i].summary.origin,
                                  position: table.live[i].summary.lastPosition, phase: table.live[i].summary.lastPhase,
                                  beganAt: table.live[i].summary.beganAt))
        }
        return EngineOutput(frame: frame.number, time: frame.time, tangibles: tangibles, freeTraces: free,
                            needs: needs, events: events, counters: counters)
    }
}
