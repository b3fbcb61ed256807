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
    /// The tangibles, sorted by id; `index` finds one by id.
    var slots: [TangibleSlot] = []
    var index: [TangibleID: Int] = [:]
    var groupCount = 0
    /// Events of definition changes made between steps, published with the next step.
    var pendingEvents: [(TangibleID, TangibleEvent)] = []
    let finder: CandidateFinder
    var cellSize: Double = 10
    /// The scene's buffers between steps (released from the table), reused by the next step.
    var sceneBuffers = FrameScene()
    /// The current frame's `drawing`: whether light checks can run at all.
    var drawing = true

    public init(config: EngineConfig = EngineConfig(), definitions: [TangibleDefinition]) {
        self.config = config
        table = TraceTable(settings: config.traces)
        finder = CandidateFinder(historyWindow: config.historyWindow, historySamples: config.historySamples,
                                 historySlack: config.historySlack)
        var seen: Set<TangibleID> = []
        for d in definitions where d.markers.count == 3 && seen.insert(d.id).inserted {
            slots.append(TangibleSlot(d, config: config))
        }
        reindex()
    }

    public var definitions: [TangibleDefinition] { slots.map(\.definition) }

    /// Sorts the slots, rebuilds the id index, the pattern groups and the grid cell size
    /// (large enough for the longest side of any pattern plus tolerance, and for recovery).
    mutating func reindex() {
        slots.sort { $0.id < $1.id }
        index = [:]
        var groups: [[Int64]: Int] = [:]
        var cell = max(config.recoveryRadius, config.driftLimit, 10)
        for i in slots.indices {
            index[slots[i].id] = i
            let key = slots[i].pattern.key
            if groups[key] == nil { groups[key] = groups.count }
            slots[i].group = groups[key]!
            cell = max(cell, slots[i].pattern.longestSide + 2 * config.maxTolerance)
        }
        groupCount = groups.count
        cellSize = cell
    }

    // MARK: The step

    public mutating func step(_ frame: Frame, outcomes: [VerificationOutcome]) -> EngineOutput {
        var events: [EngineEvent] = pendingEvents.map { EngineEvent(tangible: $0.0, frame: frame.number, time: frame.time, event: $0.1) }
        pendingEvents = []
        let t = frame.time
        drawing = frame.drawing
        func emit(_ id: TangibleID, _ acts: [TangibleEvent]) {
            for a in acts { events.append(EngineEvent(tangible: id, frame: frame.number, time: t, event: a)) }
        }
        counters.frames += 1
        let changes = table.apply(frame)
        counters.unknownContactUpdates += UInt64(changes.unknownContactUpdates)
        // Taken out of `self` so its buffers are uniquely referenced while the step fills them.
        var scene = sceneBuffers
        sceneBuffers = FrameScene()
        scene.load(table: table, cellSize: cellSize)
        for i in slots.indices {
            if let p = slots[i].perc?.placement { scene.setHolder(p.touch, slots[i].id) }
            guard let track = slots[i].track else { continue }
            for case let tr? in track.slots { scene.setHolder(tr, slots[i].id) }
        }

        // (2) Sensor events, in arrival order.
        for e in frame.sensorEvents {
            guard let i = index[e.tangible], slots[i].perc != nil else {
                counters.ignoredSensorEvents += 1
                continue
            }
            let event: PercMachine.Event?
            switch e.kind {
            case .link: event = .link(connected: e.value != 0)
            case .field: event = .field(on: e.value != 0)
            case .light: slots[i].lightValue = e.value; event = nil
            case .battery: slots[i].battery = e.value; event = nil
            case .heartbeat: event = nil
            }
            if let event {
                let before = slots[i].held
                emit(e.tangible, slots[i].perc!.handle(event, at: t))
                sync(&scene, e.tangible, before, slots[i].held)
            }
        }

        // (3) Outcomes of light checks asked for in earlier steps.
        for o in outcomes {
            guard let i = index[o.tangible], let check = slots[i].perc?.pendingCheck, check.request == o.request else {
                counters.ignoredOutcomes += 1
                continue
            }
            var current: Candidate?
            if case .confirmed(let h) = o.result, check.kind == .identify, let c = check.candidate(hypothesis: h) {
                // Not when its traces no longer fit it (`confirmedMustFit`).
                current = refitted(c, i, scene: scene, mustFit: config.confirmedMustFit)
            }
            // A located pose stands on its one touch, if that is still there and free.
            if case .confirmed(let h) = o.result, check.kind == .locate, let c = check.candidate(hypothesis: h),
               c.traceSet.allSatisfy({ tr in scene.slot[tr].map { scene.alive[$0] && (scene.holder[$0] ?? o.tangible) == o.tangible } ?? false }) {
                current = c
            }
            let before = slots[i].held
            emit(o.tangible, slots[i].perc!.handle(.outcome(o, current: current), at: t))
            sync(&scene, o.tangible, before, slots[i].held)
        }

        // (4) Upkeep of held tracks.
        for i in slots.indices {
            guard let track = slots[i].track else { continue }
            let id = slots[i].id
            let tol = slots[i].jitter.tolerance(config)
            let maintainer = TrackMaintainer(config: config, pattern: slots[i].pattern, tolerance: tol, owner: id)
            let u = maintainer.update(track, scene: &scene, table: table)
            if let rms = u.residualRMS { slots[i].jitter.observe(rms: rms, smoothing: config.jitterSmoothing) }
            let unchanged = u.events.isEmpty && u.track.slots == track.slots
            emit(id, slots[i].handleTrack(u, at: t))
            // Holder marks only move when the held traces changed (or the machine let go).
            if !unchanged || slots[i].track == nil { sync(&scene, id, track.traces, slots[i].held) }
        }

        // (5) Searching tangibles.
        search(&scene, emit: { acts, id in emit(id, acts) })

        #if DEBUG
        checkInvariants(scene)
        #endif
        let out = output(frame, scene: scene, events: events)
        scene.release()
        sceneBuffers = scene
        return out
    }

    /// Moves the holder marks of tangible `id` from `before` to `after`.
    func sync(_ scene: inout FrameScene, _ id: TangibleID, _ before: [TraceID], _ after: [TraceID]) {
        for tr in before where !after.contains(tr) && scene.holder(of: tr) == id { scene.setHolder(tr, nil) }
        for tr in after { scene.setHolder(tr, id) }
    }

    /// Candidate `c` of slot `i` refitted (`rebuild`, keeping its assignment within the
    /// deformation limit), and only if it still fits within that limit when `mustFit`:
    /// taken, traces that fit worse would be released as deformed in the same step.
    func refitted(_ c: Candidate, _ i: Int, scene: FrameScene, mustFit: Bool = true) -> Candidate? {
        let limit = slots[i].jitter.tolerance(config) * config.deformationSlack
        let out = rebuild(c, pattern: slots[i].pattern, owner: slots[i].id, scene: scene, keepWithin: limit)
        return out.flatMap { !mustFit || $0.residual <= limit ? $0 : nil }
    }

    /// A candidate refitted to the current positions of its traces, if they are all alive
    /// and free (or held by `owner`); its residual is the current one. A triple keeps its
    /// traces on their markers while that still fits within `keepWithin`: for nearly
    /// symmetric patterns the best assignment flips with jitter, and each flip moved the
    /// hypothesis's light-sensor position by up to 9 mm, taking its patch off the sensor
    /// in the middle of a light check (the main cause of wrong confirmations).
    func rebuild(_ c: Candidate, pattern: TrianglePattern, owner: TangibleID, scene: FrameScene,
                 keepWithin: Double = 0) -> Candidate? {
        let held = (0..<3).filter { c.traces[$0] != nil }
        var q: [Vec2] = []
        for m in held {
            guard let i = scene.slot[c.traces[m]!], scene.alive[i], scene.holder[i] == nil || scene.holder[i] == owner else { return nil }
            q.append(scene.positions[i])
        }
        var out = c
        if held.count == 3 {
            let kept = pattern.fit(q[0], q[1], q[2])
            if kept.residual <= keepWithin {
                out.pose = kept.pose
                out.residual = kept.residual
                return withMotionNow(out, scene: scene)
            }
            // The best assignment now (it may flip for nearly symmetric patterns).
            guard let f = pattern.fit(q, tolerance: .infinity) else { return nil }
            out.traces = f.assignment.map { c.traces[held[$0]] }
            out.pose = f.pose
            out.residual = f.residual
        } else if held.count == 2 {
            let f = pattern.fit(q[0], onMarker: held[0], q[1], onMarker: held[1])
            out.pose = f.pose
            out.residual = f.error
        } else {
            return nil
        }
        return withMotionNow(out, scene: scene)
    }

    /// `c` with its traces' motion now, as a candidate found this frame has (`CandidateFinder`;
    /// `EngineConfig.refitMotion`, else the motion it was found with).
    private func withMotionNow(_ c: Candidate, scene: FrameScene) -> Candidate {
        guard config.refitMotion else { return c }
        // (`rebuild` found every trace alive in the scene.)
        let idx = c.traces.compactMap { $0.flatMap { scene.slot[$0] } }
        guard !idx.isEmpty else { return c }
        var out = c
        out.isMoving = idx.contains { !scene.stationaryNow($0, table: table) }
        out.velocity = idx.reduce(Vec2.zero) { $0 + scene.velocityNow($1, table: table) } / Double(idx.count)
        return out
    }
}
