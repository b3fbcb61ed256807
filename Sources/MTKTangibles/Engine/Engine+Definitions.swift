// Managing definitions at run time, and defining a tangible from traces on the surface.

extension Engine {
    /// Adds a definition; its tangible starts `notInRange` (PERC) or `notRecognized` (PUC).
    public mutating func add(_ d: TangibleDefinition) throws {
        guard index[d.id] == nil else { throw DefinitionError.duplicateID(d.id) }
        try TangibleDefinition.validate(d.markers)
        slots.append(TangibleSlot(d, config: config))
        reindex()
    }

    /// Removes a definition; the traces it held become free. Returns false for an unknown id.
    @discardableResult
    public mutating func remove(_ id: TangibleID) -> Bool {
        guard let i = index[id] else { return false }
        for tr in slots[i].held { pendingEvents.append((id, .traceReleased(tr, reason: .definitionChanged))) }
        slots.remove(at: i)
        reindex()
        return true
    }

    /// Replaces a definition (same id). The tangible lets go of its traces; a PERC keeps
    /// what its sensors said (in range, on the surface) and searches again with light checks.
    public mutating func replace(_ d: TangibleDefinition) throws {
        guard let i = index[d.id] else { throw DefinitionError.unknownID(d.id) }
        let old = slots[i]
        try TangibleDefinition.validate(d.markers)
        for tr in old.held { pendingEvents.append((d.id, .traceReleased(tr, reason: .definitionChanged))) }
        var slot = TangibleSlot(d, config: config)
        slot.lightValue = old.lightValue
        slot.battery = old.battery
        if let m = old.perc, d.kind == .perc {
            let state: PercMachine.State
            switch m.state {
            case .notInRange: state = .notInRange
            case .inRange: state = .inRange
            case .onSurface(let s): state = .onSurface(PercMachine.Search(fieldOnAt: s.fieldOnAt, phase: .lightOnly))
            case .tracked(_, _, let f): state = .onSurface(PercMachine.Search(fieldOnAt: f, phase: .lightOnly))
            case .resting(let r): state = .onSurface(PercMachine.Search(fieldOnAt: r.fieldOnAt, phase: .lightOnly))
            }
            slot.perc = PercMachine(replacing: m, definition: d, config: config, state: state)
        }
        let to = slot.stateName
        if old.stateName != to {
            pendingEvents.append((d.id, .transition(from: old.stateName, to: to, reason: .definitionChanged)))
        }
        slots[i] = slot
        reindex()
    }

    /// A definition from three traces on the surface (thesis 3.6.3, the creation scene's
    /// Scan): their mean positions over the stationary window become the markers. Add it
    /// with `add(_:)`.
    public func defineTangible(fromTraces ids: [TraceID], id: TangibleID, name: String, kind: TangibleDefinition.Kind,
                               footprint: Footprint? = nil, lightSensorOffset: Vec2? = nil,
                               address: String? = nil, profile: PercProfile? = nil) throws -> TangibleDefinition {
        guard ids.count == 3, Set(ids).count == 3 else { throw DefinitionError.needThreeMarkers(Set(ids).count) }
        var points: [Vec2] = []
        var origin: InputOrigin?
        for tr in ids {
            guard table.isAlive(tr), let s = table.summary(tr) else { throw DefinitionError.unknownTrace(tr) }
            if let o = origin, o != s.origin { throw DefinitionError.mixedOrigins }
            origin = s.origin
            // Average the recent entries: one frame's positions carry the marker jitter.
            let recent = table.entries(tr).filter { $0.time >= table.now - config.traces.stationaryWindow }
            points.append(recent.isEmpty ? s.lastPosition : recent.reduce(Vec2.zero) { $0 + $1.position } / Double(recent.count))
        }
        return try TangibleDefinition.fromSurface(points: points, id: id, name: name, kind: kind, footprint: footprint,
                                                  lightSensorOffset: lightSensorOffset, address: address, profile: profile)
    }

    /// The state machine of a PERC, for diagnostics and tests.
    public func percMachine(_ id: TangibleID) -> PercMachine? {
        index[id].flatMap { slots[$0].perc }
    }
}
