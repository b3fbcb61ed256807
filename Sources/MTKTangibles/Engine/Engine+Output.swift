// Step (6) of the engine: assembling the output of a step.

extension Engine {
    /// `mutating` only so that each slot is read in place: through a non-mutating path (even
    /// a buffer pointer) Swift copied every slot, retaining all it holds, for each report.
    mutating func output(_ frame: Frame, scene: FrameScene, events: [EngineEvent]) -> EngineOutput {
        var tangibles: [TangibleReport] = []
        var needs: [VerificationNeed] = []
        tangibles.reserveCapacity(slots.count)
        for i in slots.indices {
            let (r, need) = slots[i].report(config)
            tangibles.append(r)
            if let need { needs.append(need) }
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

    /// When time alone can next change what this engine decides, after its last step: every
    /// frame while a trace is on the surface (time windows, stationarity, drop-outs); else the
    /// earliest a PERC machine names (`PercMachine.wake`). A PUC without traces waits for them.
    public var wake: Wake {
        if !table.live.isEmpty { return .everyFrame }
        var w = Wake.never
        for i in slots.indices {
            guard let m = slots[i].perc else { continue }
            w = w.earliest(m.wake(canCheck: canCheck(i)))
            if w == .everyFrame { break }
        }
        return w
    }
}
