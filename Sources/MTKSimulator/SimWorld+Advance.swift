// Moving a simulated world's virtual time forward: touch samples, sensor events, the BLE link.
import MTKTangibles

extension SimWorld {
    /// Runs the world up to `time` and returns what arrived in (previous call, `time`], in
    /// arrival order. A time before `now` returns nothing.
    public mutating func advance(to time: Seconds) -> SimOutput {
        guard time >= now else { return SimOutput() }
        while true {
            let tick = Double(tickIndex) / model.touchSampleRate
            let event = queue.nextTime ?? .infinity
            if min(tick, event) > time { break }
            if event <= tick, let (t, e) = queue.pop() {
                now = max(now, t)
                handle(e, at: t)
            } else {
                now = max(now, tick)
                sample(at: tick)
                tickIndex += 1
            }
        }
        now = time
        return release(upTo: time)
    }

    private mutating func release(upTo time: Seconds) -> SimOutput {
        var out = SimOutput()
        var keepC: [ContactUpdate] = []
        for c in pendingContacts { if c.arrival <= time { out.contacts.append(c) } else { keepC.append(c) } }
        pendingContacts = keepC
        var keepS: [SensorEvent] = []
        for e in pendingSensor { if e.arrival <= time { out.sensorEvents.append(e) } else { keepS.append(e) } }
        pendingSensor = keepS
        var keepP: [PresentedOverlay] = []
        for p in pendingPresented { if p.from <= time { out.presented.append(p) } else { keepP.append(p) } }
        pendingPresented = keepP
        // Stable sorts: equal arrivals stay in the order they were made.
        out.contacts = out.contacts.enumerated().sorted { ($0.element.arrival, $0.offset) < ($1.element.arrival, $1.offset) }.map(\.element)
        out.sensorEvents = out.sensorEvents.enumerated().sorted { ($0.element.arrival, $0.offset) < ($1.element.arrival, $1.offset) }.map(\.element)
        return out
    }

    // MARK: Scheduled events

    private mutating func handle(_ event: SimEvent, at t: Seconds) {
        switch event {
        case .field(let id, let on, let latency, let placement):
            guard let i = index[id] else { return }
            bodies[i].fieldOn = on
            if let arrival = notify(i, .field, on ? 1 : 0, latency: latency), let p = placement {
                truth.placements[p].fieldOnArrival = arrival
            }
        case .lightChange(let id, let stimulus, let colour):
            guard let i = index[id], bodies[i].stimulus == stimulus, bodies[i].sensed != colour else { return }
            bodies[i].sensed = colour
            notify(i, .light, colour.sensorValue)
        case .spontaneousFlip(let id, let generation):
            guard let i = index[id], bodies[i].flipGeneration == generation else { return }
            bodies[i].sensed = bodies[i].sensed.opposite
            truth.spontaneousFlips.append(SimTruth.Flip(tangible: id, time: t, colour: bodies[i].sensed))
            notify(i, .light, bodies[i].sensed.sensorValue)
            scheduleFlip(i)
        case .heartbeat(let id, let generation):
            guard let i = index[id], bodies[i].heartbeatGeneration == generation else { return }
            notify(i, .heartbeat, 0)
        case .battery(let id, let generation):
            guard let i = index[id], bodies[i].batteryGeneration == generation else { return }
            notifyBattery(i)
            scheduleBattery(i)
        case .linkLostNotice(let id, let generation):
            guard let i = index[id], bodies[i].linkGeneration == generation, !bodies[i].linkUp else { return }
            emitLink(i, up: false)
        case .present(let overlay):
            currentOverlay = overlay
            for i in bodies.indices { evaluateLight(i, at: t) }
        }
    }

    // MARK: Touch samples

    private mutating func sample(at s: Seconds) {
        let arrival = s + model.touchReportLatency
        for i in bodies.indices { sampleBody(i, at: s, arrival: arrival) }
        var keptGhosts: [(id: Int64, position: Vec2, endAt: Seconds)] = []
        for g in ghosts {
            let p = g.position + jitter(model.markerJitter)
            if s >= g.endAt { emit(g.id, .end, p, s, arrival) } else { emit(g.id, .move, p, s, arrival); keptGhosts.append(g) }
        }
        ghosts = keptGhosts
        for f in fingers.indices {
            let p = fingers[f].track.pose(at: s).position + jitter(model.fingerJitter)
            if fingers[f].down {
                if let c = fingers[f].contact { emit(c, .move, p, s, arrival) } else {
                    let c = beginContact(.finger(fingers[f].id), p, s, arrival)
                    fingers[f].contact = c
                }
            } else if let c = fingers[f].contact {
                emit(c, .end, p, s, arrival)
                fingers[f].contact = nil
            }
        }
        fingers.removeAll { !$0.down && $0.contact == nil }
        for i in bodies.indices { evaluateLight(i, at: s) }
    }

    private mutating func sampleBody(_ i: Int, at s: Seconds, arrival: Seconds) {
        var b = bodies[i]
        defer { bodies[i] = b }
        guard b.onSurface, let track = b.track else {
            for m in b.markers.indices {
                if let c = b.markers[m].contact { emit(c, .end, lastPosition(c), s, arrival); b.markers[m].contact = nil }
            }
            return
        }
        let pose = track.pose(at: s)
        let moving = track.isMoving(at: s)
        let touched = b.touchPoint != nil
        if moving || touched {
            b.suppressed = []
            b.filterAt = nil
            b.filtered = false
        } else if b.filterAt == nil {
            b.filterAt = s + rng.uniform(model.filterDelayMin, model.filterDelayMax)
        }
        if let f = b.filterAt, s >= f { b.filtered = true }
        let startedMoving = moving && !b.wasMoving
        b.wasMoving = moving
        let touchAt = b.touchPoint.map { pose.apply($0) }

        for m in b.markers.indices {
            var at = pose.apply(b.definition.markers[m])
            if let finger = touchAt {
                let towards = finger - at
                let d = towards.length
                if d > 0 { at += towards * (min(model.touchedMarkerShift, d) / d) }
            }
            let wants = arrival >= b.markers[m].onsetArrival && !b.suppressed.contains(m) && !b.filtered
                && arrival >= b.markers[m].dropoutUntil
            if let c = b.markers[m].contact {
                if startedMoving && (b.forcedGhost == m || rng.chance(model.ghostTouchProbability)) {
                    let frozen = lastPosition(c)
                    ghosts.append((c, frozen, s + rng.uniform(model.ghostDurationMin, model.ghostDurationMax)))
                    truth.contacts[c]?.ghostSince = arrival
                    b.markers[m].contact = nil
                    b.markers[m].dropoutUntil = arrival + dropoutFrames()
                    emit(c, .move, frozen + jitter(model.markerJitter), s, arrival)
                    continue
                }
                if !wants {
                    emit(c, .end, at + jitter(model.markerJitter), s, arrival)
                    b.markers[m].contact = nil
                    continue
                }
                if moving && rng.chance(model.flickerRate / model.touchSampleRate) {
                    emit(c, .end, at + jitter(model.markerJitter), s, arrival)
                    b.markers[m].contact = nil
                    b.markers[m].dropoutUntil = arrival + dropoutFrames()
                    continue
                }
                emit(c, .move, at + jitter(model.markerJitter), s, arrival)
            } else if wants {
                b.markers[m].contact = beginContact(.marker(tangible: b.definition.id, index: m), at + jitter(model.markerJitter), s, arrival)
            }
        }
        if startedMoving { b.forcedGhost = nil }
    }

    /// A flicker or ghost gap: whole touch samples (uniform in the configured range), as time.
    private mutating func dropoutFrames() -> Seconds {
        let k = rng.int(Int(model.flickerFramesMin.rounded())...Int(max(model.flickerFramesMin, model.flickerFramesMax).rounded()))
        return (Double(k) + 0.5) / model.touchSampleRate
    }

    private mutating func jitter(_ sigma: Double) -> Vec2 { Vec2(rng.gaussian(sigma), rng.gaussian(sigma)) }

    private mutating func beginContact(_ maker: SimTruth.Maker, _ p: Vec2, _ s: Seconds, _ arrival: Seconds) -> Int64 {
        let id = nextContactID
        nextContactID += 1
        truth.contacts[id] = SimTruth.Contact(id: id, maker: maker, began: arrival)
        emit(id, .begin, p, s, arrival)
        return id
    }

    private mutating func emit(_ id: Int64, _ phase: ContactUpdate.Phase, _ p: Vec2, _ s: Seconds, _ arrival: Seconds) {
        lastPositions[id] = phase == .end ? nil : p
        if phase == .end { truth.contacts[id]?.ended = arrival }
        pendingContacts.append(ContactUpdate(origin: origin, contactID: id, phase: phase, position: p, time: s, arrival: arrival))
    }

    private func lastPosition(_ id: Int64) -> Vec2 { lastPositions[id] ?? .zero }

    // MARK: Light sensor

    /// Looks at what is under the sensor now; a new colour there makes a response 1–4
    /// display frames later, unless the sensor misses it.
    mutating func evaluateLight(_ i: Int, at t: Seconds) {
        guard bodies[i].isPerc, let offset = bodies[i].definition.lightSensorOffset else { return }
        guard bodies[i].onSurface, let track = bodies[i].track else { bodies[i].lastSeen = nil; return }
        let seen = colour(at: track.pose(at: t).apply(offset))
        guard seen != bodies[i].lastSeen else { return }
        bodies[i].lastSeen = seen
        bodies[i].stimulus += 1
        guard seen != bodies[i].sensed else { return }
        truth.lightStimuli += 1
        if rng.chance(model.lightMissProbability) { truth.lightMisses += 1; return }
        let frames = rng.int(Int(model.lightResponseFramesMin.rounded())...Int(max(model.lightResponseFramesMin, model.lightResponseFramesMax).rounded()))
        queue.schedule(.lightChange(bodies[i].definition.id, stimulus: bodies[i].stimulus, colour: seen),
                       at: t + Double(frames) / model.displayFrameRate)
    }

    mutating func scheduleFlip(_ i: Int) {
        bodies[i].flipGeneration += 1
        let wait = rng.exponential(rate: model.lightSpontaneousFlipRate)
        if wait.isFinite {
            queue.schedule(.spontaneousFlip(bodies[i].definition.id, generation: bodies[i].flipGeneration), at: now + wait)
        }
    }

    // MARK: BLE link

    /// One connection interval's wait (uniform) plus the host stack.
    mutating func bleLatency() -> Seconds {
        rng.uniform(0, model.bleConnectionInterval) + rng.uniform(model.bleHostStackMin, model.bleHostStackMax)
    }

    /// Sends a sensor notification made now; returns its arrival, or nil when it was lost.
    @discardableResult
    mutating func notify(_ i: Int, _ kind: SensorKind, _ value: Int, latency: Seconds? = nil) -> Seconds? {
        guard bodies[i].isPerc, bodies[i].linkUp else { return nil }
        let v1 = bodies[i].profile == .percV1
        if !v1 && (kind == .heartbeat || kind == .battery) { return nil }
        var seq: UInt16?, deviceTime: UInt32?
        if v1 {
            bodies[i].sequence &+= 1
            seq = bodies[i].sequence
            deviceTime = UInt32(truncatingIfNeeded: Int64(((now + bodies[i].bootOffset) * 1e6).rounded(.down)))
            bodies[i].heartbeatGeneration += 1
            if model.heartbeatInterval > 0 {
                queue.schedule(.heartbeat(bodies[i].definition.id, generation: bodies[i].heartbeatGeneration), at: now + model.heartbeatInterval)
            }
        }
        if rng.chance(model.notificationLossProbability) { truth.lostNotifications += 1; return nil }
        let arrival = max(now + (latency ?? bleLatency()), bodies[i].lastArrival + 1e-6)
        bodies[i].lastArrival = arrival
        pendingSensor.append(SensorEvent(tangible: bodies[i].definition.id, kind: kind, value: value,
                                         sequence: seq, deviceTime: deviceTime, arrival: arrival))
        return arrival
    }

    /// The host's own link report (no sequence number: it does not come from the PERC).
    mutating func emitLink(_ i: Int, up: Bool) {
        let arrival = max(now + (up ? bleLatency() : 0), bodies[i].lastArrival + 1e-6)
        bodies[i].lastArrival = arrival
        pendingSensor.append(SensorEvent(tangible: bodies[i].definition.id, kind: .link, value: up ? 1 : 0, arrival: arrival))
    }

    mutating func notifyBattery(_ i: Int) {
        let level = max(0, bodies[i].batteryAtStart - model.batteryDrainPerHour * now / 3600)
        notify(i, .battery, Int(level.rounded(.down)))
    }

    mutating func scheduleBattery(_ i: Int) {
        bodies[i].batteryGeneration += 1
        if model.batteryInterval > 0 {
            queue.schedule(.battery(bodies[i].definition.id, generation: bodies[i].batteryGeneration), at: now + model.batteryInterval)
        }
    }
}
