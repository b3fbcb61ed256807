// The pure recognition engine: one `step` per frame turns traces and sensor events into tangibles.

/// PercBridge's core (DESIGN.md data flow): trace table → PUC/PERC recognisers →
/// verification needs. Pure and deterministic: no I/O, no clock; the same frames and
/// outcomes give the same outputs, bit for bit.
///
/// Per step: (1) the frame's contacts update the trace table; (2) sensor events drive the
/// PERC machines (link, field); (3) light-check outcomes of the previous step are consumed;
/// (4) every tracked tangible maintains its traces (recovery, deformation, ghost rule);
/// (5) every searching tangible is offered the candidates open to it, in id order, so a
/// trace is never given to two tangibles; (6) the output is assembled.
public struct Engine: Sendable {
    public private(set) var config: EngineConfig
    public private(set) var table: TraceTable
    public private(set) var counters = EngineCounters()
    var slots: [TangibleID: TangibleSlot] = [:]
    var order: [TangibleID] = []
    /// Events of definition changes made between steps, published with the next step.
    var pendingEvents: [(TangibleID, TangibleEvent)] = []
    let finder: CandidateFinder

    public init(config: EngineConfig = EngineConfig(), definitions: [TangibleDefinition]) {
        self.config = config
        table = TraceTable(settings: config.traces)
        finder = CandidateFinder(historyWindow: config.historyWindow, historySamples: config.historySamples,
                                 historySlack: config.historySlack)
        for d in definitions where slots[d.id] == nil && d.markers.count == 3 {
            slots[d.id] = TangibleSlot(d, config: config)
        }
        order = slots.keys.sorted()
    }

    public var definitions: [TangibleDefinition] { order.map { slots[$0]!.definition } }

    /// The grid cell: large enough for the longest side of any pattern plus tolerance, and
    /// for the recovery radius.
    var cellSize: Double {
        var s = max(config.recoveryRadius, config.driftLimit, 10)
        for id in order { s = max(s, slots[id]!.pattern.longestSide + 2 * config.maxTolerance) }
        return s
    }

    // MARK: The step

    public mutating func step(_ frame: Frame, outcomes: [VerificationOutcome]) -> EngineOutput {
        var events: [EngineEvent] = pendingEvents.map { EngineEvent(tangible: $0.0, frame: frame.number, time: frame.time, event: $0.1) }
        pendingEvents = []
        let t = frame.time
        func emit(_ id: TangibleID, _ acts: [TangibleEvent]) {
            for a in acts { events.append(EngineEvent(tangible: id, frame: frame.number, time: t, event: a)) }
        }
        counters.frames += 1
        let changes = table.apply(frame)
        counters.unknownContactUpdates += UInt64(changes.unknownContactUpdates)
        var scene = FrameScene(table: table, cellSize: cellSize)
        for id in order { for tr in slots[id]!.held { scene.setHolder(tr, id) } }

        // (2) Sensor events, in arrival order.
        for e in frame.sensorEvents {
            guard var slot = slots[e.tangible], case .perc(var m) = slot.machine else {
                counters.ignoredSensorEvents += 1
                continue
            }
            let event: PercMachine.Event?
            switch e.kind {
            case .link: event = .link(connected: e.value != 0)
            case .field: event = .field(on: e.value != 0)
            case .light: slot.lightValue = e.value; event = nil
            case .battery: slot.battery = e.value; event = nil
            case .heartbeat: event = nil
            }
            if let event {
                let before = m.heldTraces
                emit(e.tangible, m.handle(event, at: t))
                sync(&scene, e.tangible, before, m.heldTraces)
                slot.machine = .perc(m)
            }
            slots[e.tangible] = slot
        }

        // (3) Outcomes of light checks asked for in earlier steps.
        for o in outcomes {
            guard var slot = slots[o.tangible], case .perc(var m) = slot.machine,
                  let check = m.pendingCheck, check.request == o.request else {
                counters.ignoredOutcomes += 1
                continue
            }
            var current: Candidate?
            if case .confirmed(let h) = o.result, check.kind == .identify, h >= 0, h < check.candidates.count {
                current = rebuild(check.candidates[h], pattern: slot.pattern, owner: o.tangible, scene: scene)
            }
            let before = m.heldTraces
            emit(o.tangible, m.handle(.outcome(o, current: current), at: t))
            sync(&scene, o.tangible, before, m.heldTraces)
            slot.machine = .perc(m)
            slots[o.tangible] = slot
        }

        // (4) Upkeep of held tracks.
        for id in order {
            var slot = slots[id]!
            guard let track = slot.track else { continue }
            let tol = slot.jitter.tolerance(config)
            let maintainer = TrackMaintainer(config: config, pattern: slot.pattern, tolerance: tol, owner: id)
            let u = maintainer.update(track, scene: &scene, table: table)
            if let rms = u.residualRMS { slot.jitter.observe(rms: rms, smoothing: config.jitterSmoothing) }
            let before = track.traces
            switch slot.machine {
            case .perc(var m): emit(id, m.handle(.track(u), at: t)); slot.machine = .perc(m)
            case .puc(var p): emit(id, p.handle(.track(u), at: t)); slot.machine = .puc(p)
            }
            sync(&scene, id, before, slot.held)
            slots[id] = slot
        }

        // (5) Searching tangibles.
        search(&scene, emit: { acts, id in emit(id, acts) })

        #if DEBUG
        checkInvariants(scene)
        #endif
        return output(frame, scene: scene, events: events)
    }

    /// Moves the holder marks of tangible `id` from `before` to `after`.
    func sync(_ scene: inout FrameScene, _ id: TangibleID, _ before: [TraceID], _ after: [TraceID]) {
        for tr in before where !after.contains(tr) && scene.holder(of: tr) == id { scene.setHolder(tr, nil) }
        for tr in after { scene.setHolder(tr, id) }
    }

    /// A candidate with the current positions of its traces, if they are all alive and free
    /// (or held by `owner`).
    func rebuild(_ c: Candidate, pattern: TrianglePattern, owner: TangibleID, scene: FrameScene) -> Candidate? {
        let held = (0..<3).filter { c.traces[$0] != nil }
        var q: [Vec2] = []
        for m in held {
            guard let i = scene.slot[c.traces[m]!], scene.holder[i] == nil || scene.holder[i] == owner else { return nil }
            q.append(scene.positions[i])
        }
        var out = c
        if held.count == 3 {
            out.pose = pattern.fit(q).pose
        } else if held.count == 2 {
            out.pose = pattern.fit(q[0], onMarker: held[0], q[1], onMarker: held[1]).pose
        } else {
            return nil
        }
        return out
    }
}
