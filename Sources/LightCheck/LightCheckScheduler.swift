// The light-check scheduler: needs, light events and presented reports in; overlay and outcomes out.
import MTKTangibles

/// Decides, frame by frame, which light-check patches to draw and what the light sensors'
/// answers mean (thesis 3.3.2 "Light Sensor Check"; algorithm in docs/lightcheck.md).
///
/// Pure and deterministic: time enters only as the frame time given to ``plan(needs:sensorEvents:presented:at:)``,
/// deadlines fire when a frame's time reaches them, and every iteration runs in a fixed order.
/// One check per tangible at a time (a PERC has one sensor); checks of different tangibles
/// run in the same frames. Per tangible it learns a ``LatencyModel`` from the answers seen.
public struct LightCheckScheduler: Sendable {
    public let config: LightCheckConfig
    public private(set) var diagnostics = LightCheckDiagnostics()
    /// The overlay of the last plan.
    public private(set) var overlay = Overlay.empty

    private var checks: [TangibleID: VerificationCheck] = [:]
    private var searches: [TangibleID: CalibrationSearch] = [:]
    /// The last locate search of each tangible that ended: its rounds and the lone touches it
    /// searched around (its decoys' centres), for a later locate of the same still PERC.
    private var pastLocates: [TangibleID: (evidence: [CalibrationSearch.LocateEvidence], groups: [CalibrationSearch.TouchCells])] = [:]
    /// Patches shown for another part (a diagnose light test), by tangible.
    private var tests: [TangibleID: TestPatches] = [:]
    private var cancelledSearches: [CalibrationResult] = []
    private var colours: [TangibleID: LightColour] = [:]
    private var latencyModels: [TangibleID: LatencyModel] = [:]
    /// Per tangible, its clock against ours (`LightCheckConfig.sensorClock`): how much later
    /// than its fastest notification each one arrived.
    private var sensorClocks: [TangibleID: DeviceClockLatency] = [:]
    /// Since when each check has waited for its turn (`VerificationCheck.waitsItsTurn`;
    /// `LightCheckConfig.reserveAfterWaiting`).
    private var waitingSince: [TangibleID: Seconds] = [:]
    private var knownTangibles: Set<TangibleID> = []
    /// Requests decided already, so a need the engine repeats before it saw the outcome is
    /// not checked again; forgotten once the engine drops it.
    private var decided: [TangibleID: Set<UInt64>] = [:]
    private var lastStationaryEnd: [TangibleID: Seconds] = [:]
    /// Until when a tangible's sensor may still answer patches of a check that ended or was
    /// withdrawn: a flip before then is no answer to a newer check's round.
    private var quietUntil: [TangibleID: Seconds] = [:]
    /// Patches taken off the overlay recently (when, and since when they showed as they were),
    /// and until when a sensor may still answer them.
    /// `bare`: no patch covered its centre in the overlay that took it off (a gap of one
    /// frame is a display frame on screen, long enough for a sensor to answer).
    private var recentlyGone: [(patch: Patch, at: Seconds, since: Seconds, bare: Bool)] = []
    /// Since when each patch of the overlay shows its colour (plan time), by patch id.
    private var patchSince: [Int: Seconds] = [:]
    /// Recent light flips of every tangible (a sensor's answer is evidence about every patch
    /// shown, `LightCheckConfig.everyPatchEvidence`), oldest first.
    private var recentFlips: [(tangible: TangibleID, at: Seconds, colour: LightColour)] = []
    /// Recently issued overlays and when they were planned (to learn the presentation delay).
    private var issued: [(id: UInt64, at: Seconds)] = []
    private var lastPresentedOverlay: UInt64 = 0
    private var presentationDelay: Seconds
    private var frameInterval: Seconds = 1.0 / 120
    private var lastTime: Seconds?
    private var nextPatchID = 1

    public init(config: LightCheckConfig = .init()) {
        self.config = config
        presentationDelay = config.assumedPresentationDelay
    }

    // MARK: Queries and learned state

    /// The light colour a tangible's sensor last reported (nil: not known yet).
    public func sensorColour(of tangible: TangibleID) -> LightColour? { colours[tangible] }

    /// The latency model learned for a tangible (the prior when nothing was seen yet).
    public func latencyModel(for tangible: TangibleID) -> LatencyModel { latencyModels[tangible] ?? LatencyModel() }

    /// Restores a model learned earlier (e.g. kept across service restarts).
    public mutating func setLatencyModel(_ model: LatencyModel, for tangible: TangibleID) { latencyModels[tangible] = model }

    /// The deadline (seconds after presentation) currently used for a tangible.
    public func deadline(for tangible: TangibleID) -> Seconds { latencyModel(for: tangible).deadline(latencySettings(tangible)) }

    /// The latency settings of `tangible`: with the clock's prior once its notifications
    /// carried its clock (`sensorClocks` keeps one only under `LightCheckConfig.sensorClock`).
    private func latencySettings(_ tangible: TangibleID) -> LatencyModel.Settings {
        sensorClocks[tangible] == nil ? config.latency : config.latency.withSensorClock
    }

    /// Whether a need of this tangible is being checked (and which request).
    public func activeRequest(of tangible: TangibleID) -> UInt64? { checks[tangible]?.request ?? searches[tangible]?.locateRequest }

    /// When time alone can next change what this scheduler decides, after its last plan:
    /// every frame while a check, search or test runs or a patch is on screen (rounds,
    /// deadlines, presentation); never while it is idle.
    public var wake: Wake {
        checks.isEmpty && searches.isEmpty && tests.isEmpty && overlay.patches.isEmpty && cancelledSearches.isEmpty ? .never : .everyFrame
    }

    // MARK: Calibration API

    /// Starts finding the light-sensor offset of a tangible lying still at `request.pose`.
    /// While it runs, checks of that tangible wait. The result arrives in a later plan's
    /// `calibrations`. Returns false (and starts nothing) when a calibration of that
    /// tangible is already running. A locate search of that tangible gives way (its need
    /// starts again once the calibration is over).
    @discardableResult
    public mutating func startCalibration(_ request: CalibrationRequest, at time: Seconds) -> Bool {
        if searches[request.tangible]?.isLocate == true { endSearch(request.tangible, at: time) }
        guard searches[request.tangible] == nil else { return false }
        knownTangibles.insert(request.tangible)
        searches[request.tangible] = CalibrationSearch(request: request, at: time, settings: config.calibration)
        return true
    }

    /// Stops a running calibration; a `cancelled` result comes with the next plan.
    public mutating func cancelCalibration(tangible: TangibleID, at time: Seconds) {
        guard searches[tangible]?.isLocate == false, let s = searches.removeValue(forKey: tangible) else { return }
        if let r = s.result(at: time, finished: true) { cancelledSearches.append(r) }
    }

    // MARK: Test patches (diagnose's light test)

    /// Patches a caller asks to show for `tangible` (`percbridge diagnose --light-test`), or
    /// nil to take them off. While a tangible has them they are its only patches: a check or
    /// locate of it is withdrawn and its needs wait (no outcome comes from the test), its
    /// flips count as answers, not as spontaneous, and every other check treats the patches
    /// as another tangible's (they avoid them and take them into account when explaining a
    /// flip). Their ids are the scheduler's own. Returns false (and shows nothing) while a
    /// calibration of the tangible runs: its sensor is busy.
    @discardableResult
    public mutating func showTestPatches(_ patches: [Patch]?, for tangible: TangibleID, at time: Seconds) -> Bool {
        guard let patches else {
            // The sensor may still answer them (or their removal) for a while.
            if let old = tests.removeValue(forKey: tangible), old.firstOverlay != nil { keepQuiet(tangible, from: time) }
            return true
        }
        if let s = searches[tangible] {
            guard s.isLocate else { return false }
            endSearch(tangible, at: time)
            diagnostics.withdrawnNeeds += 1
        }
        if checks[tangible] != nil {
            endCheck(tangible, at: time)
            diagnostics.withdrawnNeeds += 1
        }
        knownTangibles.insert(tangible)
        var test = tests[tangible] ?? TestPatches()
        let mine = patches.map { p -> Patch in
            var q = p
            q.tangible = tangible
            if let id = test.ids[p.id] { q.id = id } else { q.id = nextPatchID; test.ids[p.id] = nextPatchID; nextPatchID += 1 }
            return q
        }
        if !mine.elementsEqual(test.patches, by: { $0.id == $1.id && $0.colour == $1.colour }) { test.firstOverlay = nil }
        // Ids of patches no longer asked for are not kept (a long test asks for new ones each round).
        test.ids = test.ids.filter { entry in mine.contains { $0.id == entry.value } }
        test.patches = mine
        tests[tangible] = test
        return true
    }

    /// The overlay in which `tangible`'s test patches, as last asked for, first showed (nil:
    /// not drawn yet, or no test).
    public func testOverlay(of tangible: TangibleID) -> UInt64? { tests[tangible]?.firstOverlay }

    // MARK: The frame step

    /// One frame: the engine's needs, this frame's sensor events and presented reports.
    public mutating func plan(needs: [VerificationNeed], frame: Frame) -> LightCheckPlan {
        plan(needs: needs, sensorEvents: frame.sensorEvents, presented: frame.presented, at: frame.time)
    }

    /// One frame at `time`. Events count as happening at the frame time (thesis 3.2.1).
    public mutating func plan(needs: [VerificationNeed], sensorEvents: [SensorEvent],
                              presented: [PresentedOverlay], at rawTime: Seconds) -> LightCheckPlan {
        let time = acceptTime(rawTime)
        takeNeeds(needs, at: time)
        for report in presented { takePresented(report) }
        rememberFlips(sensorEvents, at: time)
        for event in sensorEvents { takeEvent(event, at: time) }
        tick(at: time)
        var outcomes: [VerificationOutcome] = []
        var results = cancelledSearches
        cancelledSearches = []
        decide(at: time, outcomes: &outcomes, calibrations: &results)
        let changed = draw(at: time)
        return LightCheckPlan(overlay: overlay, overlayChanged: changed, outcomes: outcomes, calibrations: results)
    }

    private mutating func acceptTime(_ t: Seconds) -> Seconds {
        guard t.isFinite, lastTime.map({ t >= $0 }) ?? true else {
            diagnostics.count(.timeWentBack)
            return lastTime ?? 0
        }
        // Learnt only from frames cut while it was busy: an idle scheduler's frames may be
        // far apart (an event-driven clock sleeps while nothing needs time, see `wake`).
        if let l = lastTime, t > l, wake == .everyFrame { frameInterval = 0.9 * frameInterval + 0.1 * min(t - l, 0.1) }
        lastTime = t
        return t
    }

    private mutating func takeNeeds(_ needs: [VerificationNeed], at time: Seconds) {
        var chosen: [TangibleID: VerificationNeed] = [:]
        var requests: [TangibleID: Set<UInt64>] = [:]
        for var need in needs {
            let valid = need.hypotheses.filter { $0.sensorPosition.isFinite && $0.pose.position.isFinite && $0.pose.angle.isFinite }
            if valid.count != need.hypotheses.count || valid.isEmpty { diagnostics.count(.badHypothesis) }
            need.hypotheses = valid
            requests[need.tangible, default: []].insert(need.request)
            if let other = chosen[need.tangible] {
                diagnostics.count(.concurrentNeed)
                // Keep the one being checked; otherwise the older request goes first.
                let active = checks[need.tangible]?.request
                if other.request == active || (need.request != active && other.request < need.request) { continue }
            }
            chosen[need.tangible] = need
        }
        for t in checks.keys.sorted() {
            guard let check = checks[t] else { continue }
            if let need = chosen[t], need.request == check.request {
                checks[t]?.update(need)
            } else {
                endCheck(t, at: time)
                diagnostics.withdrawnNeeds += 1
            }
        }
        for t in searches.keys.sorted() {
            guard let r = searches[t]?.locateRequest, chosen[t]?.request != r else { continue }
            endSearch(t, at: time)
            diagnostics.withdrawnNeeds += 1
        }
        for t in decided.keys.sorted() {
            decided[t] = decided[t]?.intersection(requests[t] ?? [])
            if decided[t]?.isEmpty == true { decided[t] = nil }
        }
        for t in chosen.keys.sorted() where checks[t] == nil && tests[t] == nil {
            guard let need = chosen[t], !(decided[t]?.contains(need.request) ?? false) else { continue }
            knownTangibles.insert(t)
            if need.kind == .locate {
                // (A calibration of the tangible holds its sensor: the need waits.)
                if searches[t] == nil {
                    var search = CalibrationSearch(locate: need, at: time, settings: config.locate, margin: config.patchRadius)
                    if config.locateMemory > 0, let past = pastLocates[t] {
                        search.replay(evidence: past.evidence.filter { $0.at >= time - config.locateMemory }, groups: past.groups)
                    }
                    searches[t] = search
                }
                continue
            }
            checks[t] = VerificationCheck(need: need, at: time, config: config)
        }
    }

    private mutating func takePresented(_ report: PresentedOverlay) {
        guard report.overlayID > 0, report.overlayID <= overlay.id, report.from.isFinite else {
            diagnostics.count(.unknownOverlay)
            return
        }
        // Only an overlay's first report says how long presenting takes: an app that reports a
        // standing overlay again (a second app, a buggy or hostile one) would teach a delay
        // that grows with the overlay's age and stretches every echo and quiet window.
        let first = report.overlayID > lastPresentedOverlay
        lastPresentedOverlay = max(lastPresentedOverlay, report.overlayID)
        if first || !config.presentationFromFirstReport, let planned = issued.first(where: { $0.id == report.overlayID })?.at {
            let delay = min(max(report.from - planned, 0), 0.5)
            presentationDelay = 0.8 * presentationDelay + 0.2 * delay
        }
        for t in checks.keys.sorted() { checks[t]?.presented(report) }
        for t in searches.keys.sorted() { searches[t]?.presented(report) }
    }

    private mutating func takeEvent(_ event: SensorEvent, at time: Seconds) {
        let t = event.tangible
        // When the sensor changed: the arrival less this notification's delay above the
        // link's fastest (the fastest one's own delay, a few ms, is not known).
        var changedAt: Seconds?
        if config.sensorClock, let deviceTime = event.deviceTime, event.arrival.isFinite {
            let late = sensorClocks[t, default: DeviceClockLatency()].observe(deviceTime: deviceTime, arrival: event.arrival).jitter
            changedAt = min(time, event.arrival - late)
        }
        switch event.kind {
        case .light:
            guard event.value == 0 || event.value == 1 else { diagnostics.count(.badLightValue); return }
            if !knownTangibles.contains(t) { diagnostics.count(.unknownTangibleEvent) }
            let colour = LightColour(sensorValue: event.value)
            let previous = colours[t]
            colours[t] = colour
            guard previous != colour else { return }
            let verdict: VerificationCheck.FlipVerdict
            // Whether the round this flip may void had patches sent to the screen
            // (`quietAfterVoidedRound`, below).
            let roundSent = config.quietAfterVoidedRound && (searches[t] != nil ? searches[t]!.round?.firstOverlayID != nil
                : tests[t] == nil && checks[t]?.currentRound?.firstOverlayID != nil)
            // Likely the sensor following the patches of the check before (or their removal).
            let inQuiet = (changedAt ?? time) < quietUntil[t] ?? -.infinity
            if searches[t] != nil, config.locateInQuiet, searches[t]!.isLocate, inQuiet {
                // As for a check (below).
                searches[t]!.void()
                verdict = .spontaneous
            } else if searches[t] != nil {
                verdict = searches[t]!.flip(at: time, changedAt: changedAt, config: config)
            } else if tests[t] != nil {
                verdict = .primed  // the test's answer, judged by whoever asked for the patches
            } else if checks[t] != nil, inQuiet {
                // The round is void, the next one starts from the new colour.
                checks[t]!.void()
                verdict = .spontaneous
            } else if checks[t] != nil {
                let why = explanation(of: t, flipFrom: previous, to: colour, at: time, changedAt: changedAt)
                verdict = checks[t]!.flip(at: time, changedAt: changedAt, config: config, explanation: why)
            } else {
                verdict = .spontaneous
            }
            // The patches of a round a late answer voided may still be answered.
            if roundSent, case .late = verdict { keepQuiet(t, from: time) }
            switch verdict {
            case .answer(let latency, let response):
                diagnostics.answers += 1
                learn(t, latency: latency, response: response)
            case .late(let latency, let response):
                diagnostics.lateAnswers += 1
                learn(t, latency: latency, response: response)
            case .spontaneous:
                // The first report of a sensor is its state, not a change.
                if previous != nil { diagnostics.spontaneousFlips[t, default: 0] += 1 }
            case .primed:
                break
            }
        case .link where event.value == 0:
            // A reconnected sensor's state is unknown until it reports again, and its clock
            // may have started again.
            colours[t] = nil
            sensorClocks[t] = nil
            pastLocates[t] = nil
        case .field:
            // Lifted or set down: where its sensor was is no longer where it is.
            pastLocates[t] = nil
        case .link, .battery, .heartbeat:
            break
        }
    }

    /// Learns an answer's latency (presentation → arrival) and the sensor's response
    /// (presentation → change, by its clock), each when known.
    private mutating func learn(_ t: TangibleID, latency: Seconds?, response: Seconds?) {
        if let latency { latencyModels[t, default: LatencyModel()].record(latency, settings: config.latency) }
        if let response { latencyModels[t, default: LatencyModel()].record(response: response, settings: config.latency) }
    }

    private mutating func tick(at time: Seconds) {
        for t in checks.keys.sorted() {
            let before = checks[t]!.rounds
            if checks[t]!.tick(at: time, deadline: deadline(for: t), presentationDelay: presentationDelay, config: config),
               colours[t] == nil {
                colours[t] = config.primeColour
            }
            if checks[t]!.rounds > before { diagnostics.silentRounds += 1 }
            if checks[t]!.lastTickAssumedPresentation { diagnostics.assumedPresentations += 1 }
        }
        for t in searches.keys.sorted() {
            if searches[t]!.tick(at: time, deadline: deadline(for: t), presentationDelay: presentationDelay, config: config),
               colours[t] == nil {
                colours[t] = config.primeColour
            }
        }
    }

    private mutating func decide(at time: Seconds, outcomes: inout [VerificationOutcome], calibrations: inout [CalibrationResult]) {
        for t in checks.keys.sorted() {
            guard let check = checks[t], let result = check.decision(at: time, config: config) else { continue }
            if case .confirmed(let h) = result, placeTaken(h, of: t) { continue }
            outcomes.append(VerificationOutcome(tangible: t, request: check.request, result: result, time: time))
            decided[t, default: []].insert(check.request)
            if check.kind == .stationary { lastStationaryEnd[t] = time }
            endCheck(t, at: time)
        }
        for t in searches.keys.sorted() {
            guard let s = searches[t] else { continue }
            if let request = s.locateRequest {
                guard let result = s.locateDecision() else { continue }
                outcomes.append(VerificationOutcome(tangible: t, request: request, result: result, time: time))
                decided[t, default: []].insert(request)
                // As after a calibration: its patches go now, and the sensor may answer that
                // (`quietAfterLocate`).
                endSearch(t, at: time, patchesShown: config.quietAfterLocate && overlay.patches.contains { $0.tangible == t })
                continue
            }
            guard let r = s.result(at: time, finished: false) else { continue }
            calibrations.append(r)
            // Its patches go now: the sensor may still answer the last round's patches, or their
            // removal, and a check of the tangible that starts next must not take that flip for
            // an answer (the calibration has just ended on an answer, so no round runs).
            endSearch(t, at: time, patchesShown: overlay.patches.contains { $0.tangible == t })
        }
    }

    /// Two PERCs cannot stand on one place (`LightCheckConfig.everyPatchEvidence`): a
    /// hypothesis is not confirmed while another searching tangible's check holds at least
    /// half its weight on that place and its own sensor answered a round that probed only
    /// that place (two PERCs of one pattern set down together, each with the other's traces
    /// among its hypotheses: they are told apart by light first).
    private func placeTaken(_ h: Int, of t: TangibleID) -> Bool {
        guard config.everyPatchEvidence, let check = checks[t], check.kind == .identify,
              let at = check.need.hypotheses.first(where: { $0.id == h })?.sensorPosition else { return false }
        let apart = 2 * config.minPatchRadius + config.patchGap
        return checks.keys.sorted().contains { u in
            guard u != t, let other = checks[u], other.kind == .identify else { return false }
            return other.weightSingledOut(at: at, within: apart, clean: false) >= 0.5
        }
    }

    /// Drops a tangible's search; as with a check, its sensor may still answer the patches
    /// of a running round (or of the last one, `patchesShown`) for a while.
    private mutating func endSearch(_ t: TangibleID, at time: Seconds, patchesShown: Bool = false) {
        if searches[t]?.round != nil || patchesShown { keepQuiet(t, from: time) }
        if let s = searches[t], s.isLocate, !s.evidence.isEmpty { pastLocates[t] = (s.evidence, s.touchGroups) }
        searches[t] = nil
    }

    /// Drops a tangible's check; if it had patches on screen, the sensor may still answer
    /// them (or their removal) for one presentation delay plus one deadline.
    private mutating func endCheck(_ t: TangibleID, at time: Seconds) {
        if let check = checks[t], check.currentRound != nil || !check.shown.isEmpty { keepQuiet(t, from: time) }
        checks[t] = nil
        waitingSince[t] = nil
    }

    /// A flip of `t`'s sensor in the next presentation delay plus deadline may answer patches
    /// that went or changed now: it voids a check's round (see `takeEvent`).
    private mutating func keepQuiet(_ t: TangibleID, from time: Seconds) {
        quietUntil[t] = max(quietUntil[t] ?? -.infinity, time + presentationDelay + deadline(for: t))
    }

    // MARK: Drawing

    private func selector(for tangible: TangibleID) -> ProbeSelector {
        let model = latencyModel(for: tangible)
        let d = deadline(for: tangible)
        return ProbeSelector(likelihood: .make(window: d, config: config),
                             expectedFlipTime: presentationDelay + model.expectedLatency(latencySettings(tangible)),
                             expectedSilenceTime: presentationDelay + d,
                             resetTime: presentationDelay + frameInterval)
    }

    /// Draws running rounds first, then starts new rounds around them; returns whether the
    /// overlay changed.
    private mutating func draw(at time: Seconds) -> Bool {
        var patches: [TangibleID: [Patch]] = [:]
        let tangibles = Set(checks.keys).union(searches.keys).union(tests.keys).sorted()
        // Test patches and running rounds keep their patches.
        for t in tangibles {
            if let test = tests[t] {
                patches[t] = held(test.patches)
            } else if searches[t] != nil {
                if searches[t]!.round != nil { patches[t] = calibrationPatches(t) }
            } else if checks[t]?.currentRound != nil {
                patches[t] = held(checkPatches(t, at: time, startingWith: nil))
            }
        }
        // New rounds avoid everything already placed, and every other check's live
        // candidates (see `guardedPositions`). Checks that waited for another tangible's
        // round go first, so two PERCs with shared candidates take turns; one that still has
        // to wait reserves its candidates against the rounds started after it in this frame
        // (else a tangible whose rounds follow each other could starve it).
        var waited = tangibles.filter { checks[$0]?.waitsItsTurn == true }
        if config.reserveAfterWaiting > 0 { waited.sort { (waitingSince[$0] ?? time, $0) < (waitingSince[$1] ?? time, $1) } }
        var reserved: [TangibleID] = []
        for t in waited + tangibles.filter({ !waited.contains($0) }) where patches[t] == nil {
            let others = patches.values.flatMap { $0 }
            if searches[t] != nil {
                if checks[t]?.currentRound != nil { checks[t]?.hold(.sensorBusy) }
                // A locate search is the engine's, not the user's: its discs wait for other
                // tangibles' patches and candidates to be out of the way (and, without
                // `locateInQuiet`, for its own sensor to be done with an earlier check's patches).
                if searches[t]!.isLocate, !locateRoundMayStart(t, placed: others, reserved: reserved, at: time) { continue }
                startCalibrationRound(t, at: time)
                patches[t] = calibrationPatches(t)
            } else if checks[t] != nil {
                patches[t] = held(checkPatches(t, at: time, startingWith: others, reserved: reserved))
                if let check = checks[t], check.waitsItsTurn {
                    let since = waitingSince[t] ?? time
                    waitingSince[t] = since
                    if check.state == .holding(.sensorBusy) || time - since >= config.reserveAfterWaiting { reserved.append(t) }
                } else {
                    waitingSince[t] = nil
                }
            }
        }
        let all = tangibles.flatMap { patches[$0] ?? [] }
        let changed = all != overlay.patches
        if changed { rememberGonePatches(old: overlay.patches, new: all, at: time) }
        if changed {
            overlay = Overlay(id: overlay.id + 1, patches: all)
            issued.append((overlay.id, time))
            if issued.count > 64 { issued.removeFirst(issued.count - 64) }
        }
        let onScreen: Seconds? = !changed && lastPresentedOverlay >= overlay.id ? time : nil
        for t in tests.keys.sorted() where tests[t]!.firstOverlay == nil && !(patches[t] ?? []).isEmpty {
            tests[t]!.firstOverlay = overlay.id
        }
        for t in tangibles where !(patches[t] ?? []).isEmpty {
            checks[t]?.setFirstOverlay(overlay.id, onScreenSince: onScreen)
            searches[t]?.setFirstOverlay(overlay.id, onScreenSince: onScreen)
        }
        return changed
    }

    /// Patches that stay put: a patch of the overlay on screen keeps its centre while the
    /// new plan puts the same patch (id, colour, radius, purpose) within `patchHoldFraction`
    /// of its radius, so a still tangible's jitter issues no new overlay. Applied before the
    /// patches are placed, so the scheduler's positions are the drawn ones.
    private func held(_ new: [Patch]) -> [Patch] {
        guard config.patchHoldFraction > 0 else { return new }
        return new.map { p in
            guard let old = overlay.patches.first(where: { $0.id == p.id }), old.tangible == p.tangible,
                  old.colour == p.colour, old.purpose == p.purpose, old.radius == p.radius,
                  old.center.distance(to: p.center) <= config.patchHoldFraction * p.radius else { return p }
            var kept = p
            kept.center = old.center
            return kept
        }
    }

    /// Cross-talk after the fact: a patch of another tangible that was over one of this
    /// tangible's candidates may have flipped its sensor, and the flip may arrive after that
    /// patch is gone (rounds only hold while it shows). Patches that go or change are kept
    /// for a while (the longest deadline); see `echoesForeignPatch`.
    private mutating func rememberGonePatches(old: [Patch], new: [Patch], at time: Seconds) {
        recentlyGone.removeAll { $0.at + presentationDelay + config.latency.maxDeadline <= time }
        func covered(_ c: Vec2) -> Bool { new.contains { $0.center.distance(to: c) < $0.radius } }
        for p in old where !new.contains(p) { recentlyGone.append((p, time, patchSince[p.id] ?? time, !covered(p.center))) }
        // Since when each patch shows its colour: a patch that keeps its id and colour
        // (held, or moved with its candidate) keeps its time.
        var since: [Int: Seconds] = [:]
        for p in new {
            let same = old.contains { $0.id == p.id && $0.colour == p.colour }
            since[p.id] = same ? (patchSince[p.id] ?? time) : time
        }
        patchSince = since
    }

    /// Whether `t`'s sensor may still be answering another tangible's patch that lay over
    /// one of its live candidates and went less than one presentation delay plus `t`'s
    /// deadline ago (a new round of `t` waits). The overlay on screen until this frame counts
    /// too: `draw` plans new rounds before it remembers the patches that go in this frame
    /// (a round that ended now, a check withdrawn now).
    private func echoesForeignPatch(_ t: TangibleID, at time: Seconds) -> Bool {
        guard let check = checks[t] else { return false }
        let live = check.need.hypotheses.filter { check.belief.weight(of: $0.id) >= 1e-3 }
        func over(_ p: Patch) -> Bool {
            p.tangible != t && live.contains { $0.sensorPosition.distance(to: p.center) < p.radius + config.patchRadius + config.patchGap }
        }
        let reach = presentationDelay + deadline(for: t)
        return overlay.patches.contains(where: over) || recentlyGone.contains { time < $0.at + reach && over($0.patch) }
    }

    /// Remembers this frame's light flips of every tangible (before any is taken, so a check
    /// sees the other sensors' answers of the same frame).
    private mutating func rememberFlips(_ events: [SensorEvent], at time: Seconds) {
        let keep = presentationDelay + config.latency.maxDeadline
        recentFlips.removeAll { $0.at + keep < time }
        var seen = colours
        for e in events {
            switch e.kind {
            case .light where e.value == 0 || e.value == 1:
                let c = LightColour(sensorValue: e.value)
                if let before = seen[e.tangible], before != c { recentFlips.append((e.tangible, time, c)) }
                seen[e.tangible] = c
            case .link where e.value == 0:
                seen[e.tangible] = nil
            default:
                break
            }
        }
    }

    /// What else than the round's own patches could have made `t`'s sensor flip from
    /// `previous` to `colour` now (`LightCheckConfig.everyPatchEvidence`):
    /// - another tangible's patch in `colour`, on screen or gone, that showed from less than
    ///   one presentation delay plus `t`'s deadline before the flip (the sensor may be under
    ///   it and answer it late), and
    /// - any patch in `previous` (this check's too) that went in that time and left its
    ///   place bare (what shows there now is the app's scene);
    /// the places under them are `explained`, and "none" when one lies within `explainReach`
    /// footprint radii of a hypothesis. When another searching tangible that may be under
    /// one of this round's patches flipped to its colour during the round, "none" too.
    private func explanation(of t: TangibleID, flipFrom previous: LightColour?, to colour: LightColour,
                             at time: Seconds, changedAt: Seconds? = nil) -> FlipExplanation {
        guard config.everyPatchEvidence, let previous, let check = checks[t], let round = check.currentRound,
              round.phase == .probing else { return .nothing }
        let reach = presentationDelay + deadline(for: t)
        let minLatency = config.latency.minResponseLatency
        // How long ago a patch could have made the sensor flip runs to when it changed, by its
        // clock when known (never later than the arrival): a deadline shortened for a sensor
        // with a clock does not shorten this reach.
        let changed = changedAt ?? time
        var causes: [Patch] = []
        for p in overlay.patches where p.tangible != t && p.colour == colour {
            let since = patchSince[p.id] ?? time
            if time >= since + minLatency, changed < since + reach { causes.append(p) }
        }
        for g in recentlyGone where time >= g.at + minLatency && changed < g.at + reach {
            if g.patch.tangible != t, g.patch.colour == colour, time >= g.since + minLatency {
                causes.append(g.patch)
            } else if g.patch.colour == previous, g.bare {
                causes.append(g.patch)
            }
        }
        var out = FlipExplanation()
        let places: [(id: Int, at: Vec2)] = check.need.hypotheses.map { ($0.id, $0.sensorPosition) }
            + check.departedPositions.keys.sorted().map { ($0, check.departedPositions[$0]!) }
        if !causes.isEmpty {
            let reachOfNone = config.explainReach * check.need.footprint.extent
            for p in causes {
                let under = places.filter { $0.at.distance(to: p.center) < p.radius + config.patchGap }
                for place in under { out.explained.insert(place.id) }
                // A hypothesis that left the need is one of the ways "none" is right.
                if under.contains(where: { check.departedPositions[$0.id] != nil }) { out.none = true }
                // A patch over one of the hypotheses explains that one; "none" puts the
                // sensor elsewhere: under a patch off every hypothesis but near enough.
                if under.isEmpty, !occupied(p), places.contains(where: { $0.at.distance(to: p.center) < p.radius + reachOfNone })
                    || (p.tangible != t && onOtherPlace(p, check.need)) { out.none = true }
            }
        }
        // Another searching tangible's sensor answered one of this round's patches: when that
        // tangible may be under one patch of the colour it flipped to and no other, it may be
        // there, and this sensor's flip may as well have come from elsewhere: "none"
        // explains it, and it confirms nothing there.
        let start = round.presentedAt ?? (round.plannedAt + config.assumedPresentationDelay)
        for f in recentFlips where f.tangible != t && f.at >= start + minLatency && f.at <= time {
            guard let other = checks[f.tangible] else { continue }
            let otherPlaces = other.need.hypotheses.filter { other.belief.weight(of: $0.id) >= 1e-3 }.map(\.sensorPosition)
            let answered = overlay.patches.filter { p in
                p.tangible == t && p.colour == f.colour && f.at >= (patchSince[p.id] ?? f.at) + minLatency
                    && otherPlaces.contains(where: { $0.distance(to: p.center) < p.radius + config.patchGap })
            }
            if answered.count == 1 { out.none = true }
        }
        return out
    }

    /// Whether another tangible's patch `p` lies over the sensor of one of the tangible's
    /// candidates that its need does not offer (`LightCheckConfig.explainOtherPlaces`): its own
    /// triple may not be offered yet while its check runs on others' traces (`bench accuracy
    /// --seed 1 --show 6493` under a trial).
    private func onOtherPlace(_ p: Patch, _ need: VerificationNeed) -> Bool {
        guard config.explainOtherPlaces else { return false }
        return need.otherPlaces.prefix(VerificationNeed.maxOtherPlaces).contains { $0.distance(to: p.center) < p.radius + config.patchGap }
    }

    /// Whether another tangible's check holds the place under its patch `p` with at least
    /// `occupiedWeight`, and its own sensor answered a round that probed only that place with
    /// a flip no other patch explained for "none" (`LightCheckConfig.occupiedPlaces`). Neither
    /// a weight from the prior alone (a check of one hypothesis starts at 0.95) nor answers
    /// that another check's patches could have caused make a place occupied: two sensors can
    /// each answer the other's probes (`OccupiedPlacesTests`).
    private func occupied(_ p: Patch) -> Bool {
        guard config.occupiedPlaces, let other = checks[p.tangible] else { return false }
        return other.weightSingledOut(at: p.center, within: p.radius + config.patchGap, clean: true) >= config.occupiedWeight
    }

    private mutating func patchID(_ t: TangibleID, key: Int) -> Int {
        if let id = checks[t]?.patchIDs[key] { return id }
        let id = nextPatchID
        nextPatchID += 1
        checks[t]?.patchIDs[key] = id
        return id
    }

    /// The patches of a tangible's check; starts a round first when `startingWith` (the
    /// patches already placed) is given and none is running.
    private mutating func checkPatches(_ t: TangibleID, at time: Seconds, startingWith placed: [Patch]?,
                                       reserved: [TangibleID] = []) -> [Patch] {
        guard let check = checks[t] else { return [] }
        let need = check.need
        let stationary = check.kind == .stationary
        if stationary, check.currentRound == nil, let last = lastStationaryEnd[t], time < last + config.stationaryMinInterval {
            checks[t]?.hold(.stationaryInterval)
            return []
        }
        let speed = need.isMoving ? need.velocity.length : 0
        if need.isMoving && (config.movingStrategy == .wait || !(speed <= config.maxCheckSpeed)) {
            // Patches that may have been seen go with the round (`quietAfterHeldRound`).
            if config.quietAfterHeldRound, let r = check.currentRound, r.phase == .probing, r.firstOverlayID != nil {
                keepQuiet(t, from: time)
            }
            checks[t]?.hold(.movingTooFast)
            return []
        }
        // Predict where the sensor is while the patch is on screen: it appears after the
        // presentation delay and stays about one frame.
        let shift = need.isMoving ? need.velocity * (presentationDelay + frameInterval / 2) : .zero
        let live = need.hypotheses.filter { check.belief.weight(of: $0.id) >= 1e-3 || check.currentRound?.drawn.contains($0.id) == true }
            + check.lingeringHypotheses
        let base = (stationary ? config.stationaryPatchRadius : config.patchRadius) + speed * config.movingRadiusPerSpeed
        let layout = CandidateLayout(hypotheses: live, footprint: need.footprint, shift: shift, baseRadius: base, config: config)
        if check.currentRound == nil {
            guard let placed else { return [] }
            // Cross-talk between tangibles: a patch of another tangible over one of this
            // tangible's candidates would flip its sensor if that candidate is the true one,
            // and the flip would be read as an answer to this round's probes (wrong
            // confirmations when two PERCs are searching near each other). Such a round waits.
            let foreign = placed.filter { $0.tangible != t }
            let exposed = live.contains { h in
                foreign.contains { $0.center.distance(to: h.sensorPosition + shift) < $0.radius + config.patchRadius + config.patchGap }
            }
            // The same after the fact: the sensor may still answer such a patch that just went.
            if exposed || echoesForeignPatch(t, at: time) {
                checks[t]?.hold(.behindPatches)
                return []
            }
            let guarded = guardedPositions(except: t, reserved: reserved)
            var drawable = layout.drawable(policy: config.footprintPolicy)
            drawable.removeAll { i in
                placed.contains { $0.center.distance(to: layout.clusters[i].center) < $0.radius + layout.radius + config.patchGap }
            }
            guard !drawable.isEmpty else {
                checks[t]?.hold(.nothingDrawable)
                return []
            }
            drawable.removeAll { i in
                guarded.contains { $0.distance(to: layout.clusters[i].center) < layout.radius + config.patchRadius + config.patchGap }
            }
            guard !drawable.isEmpty else {
                checks[t]?.hold(.sensorBusy)
                return []
            }
            let drawnIDs = Set(drawable.flatMap { layout.clusters[$0].ids })
            // A live candidate shown before and left out now (another tangible's candidates
            // are in the way) changes what the sensor sees if it is there: its flip is no
            // answer to this round.
            if check.shown.keys.contains(where: { !drawnIDs.contains($0) && check.belief.weight(of: $0) >= 1e-3 }) {
                keepQuiet(t, from: time)
            }
            var round = newRound(t, check, drawable.map { layout.clusters[$0] }, at: time)
            round.offered = Set(live.map(\.id))
            checks[t]?.begin(round)
        } else {
            checks[t]?.advanceStagger(at: time, presentationDelay: presentationDelay)
        }
        if !stationary { adoptNewcomersBesideProbes(t, layout) }
        checks[t]?.drew(radius: layout.radius)
        guard let round = checks[t]?.currentRound else { return [] }
        var out: [Patch] = []
        var drawnNow: [Int: LightColour] = [:]
        for cluster in layout.clusters where cluster.ids.contains(where: round.drawn.contains) {
            let isProbe = cluster.ids.contains(where: round.probed.contains)
            if config.evidenceByPlace {
                checks[t]?.adopt(cluster.ids.filter { !round.drawn.contains($0) }, probed: isProbe,
                                 beside: cluster.ids.filter(round.drawn.contains), intoSets: config.newcomersTakeProbes)
            }
            let purpose: Patch.Purpose = stationary ? .stationary : (isProbe ? .probe : .decoy)
            let colour = isProbe ? round.probeColour : round.colour
            out.append(Patch(id: patchID(t, key: cluster.ids[0]), tangible: t, center: cluster.center, radius: layout.radius,
                             colour: colour, purpose: purpose))
            for id in cluster.ids { drawnNow[id] = colour }
        }
        checks[t]?.shown = drawnNow
        return out
    }

    /// The next round of `t`'s check over the drawable `clusters`: which of them it probes
    /// (the selector's choice), whether it must reset first, and its staggered probe sets; a
    /// priming round while the sensor's colour is not known.
    private func newRound(_ t: TangibleID, _ check: VerificationCheck, _ clusters: [CandidateLayout.Cluster],
                          at time: Seconds) -> CheckRound {
        let drawn = Set(clusters.flatMap(\.ids))
        guard let colour = colours[t] else {
            return CheckRound(colour: config.primeColour, phase: .priming, probed: [], drawn: drawn, plannedAt: time)
        }
        let candidates = clusters.map { c in
            ProbeSelector.Candidate(mass: c.ids.reduce(0) { $0 + check.belief.weight(of: $1) }, covered: c.covered,
                                    needsReset: c.ids.contains { check.shown[$0] == colour.opposite })
        }
        let drawnMass = candidates.reduce(0) { $0 + $1.mass }
        let chosen = selector(for: t).choose(candidates, uncoveredMass: max(0, 1 - drawnMass))
        let probed = Set(chosen.flatMap { clusters[$0].ids })
        let phase: CheckRound.Phase = probed.contains { check.shown[$0] == colour.opposite } ? .resetting : .probing
        var stagger: CheckRound.Stagger?
        if phase == .probing, check.kind != .stationary, let span = staggerSpan(t) {
            let rest = staggeredDecoys(candidates, chosen: chosen).map { Set(clusters[$0].ids) }
            if !rest.isEmpty { stagger = CheckRound.Stagger(lead: probed, later: rest.map { .init(ids: $0) }, span: span) }
        }
        return CheckRound(colour: colour, phase: phase, probed: probed, drawn: drawn, plannedAt: time, stagger: stagger)
    }

    /// A hypothesis that joined `t`'s round in a cluster of its own, but close to one of its
    /// probes (the layout shrank rather than merge them), may have seen that probe at the
    /// radius it showed: it takes the probe's role (`LightCheckConfig.newcomersTakeProbes`).
    private mutating func adoptNewcomersBesideProbes(_ t: TangibleID, _ layout: CandidateLayout) {
        guard config.newcomersTakeProbes, config.evidenceByPlace, let round = checks[t]?.currentRound,
              round.phase == .probing else { return }
        let reach = max(round.largestRadius, layout.radius) + config.minPatchRadius + config.patchGap
        let probes = layout.clusters.filter { $0.ids.contains(where: round.probed.contains) }
        for c in layout.clusters where !c.ids.contains(where: { round.drawn.contains($0) || round.offered.contains($0) }) {
            guard let p = probes.first(where: { $0.center.distance(to: c.center) < reach }) else { continue }
            checks[t]?.adopt(c.ids, probed: true, beside: p.ids.filter(round.probed.contains), intoSets: true)
        }
    }

    /// The response span of `t`'s sensor when its rounds may be staggered
    /// (`LightCheckConfig.staggeredProbes`): its notifications carry its clock and enough of
    /// its responses were timed by it. Every change read by the clock may be late by as much
    /// as the link's fastest notification waited itself (`DeviceClockLatency.fastestDelayBound`),
    /// so the span's end moves that much later: a clock seen through few notifications
    /// staggers less.
    /// Nil too when the span is as long as the deadline (staggering would gain nothing).
    private func staggerSpan(_ t: TangibleID) -> ClosedRange<Seconds>? {
        guard config.staggeredProbes, config.sensorClock, let clock = sensorClocks[t],
              let learned = latencyModel(for: t).responseSpan(config.latency, minimum: config.staggerAfterResponses) else { return nil }
        let span = learned.lowerBound...(learned.upperBound + clock.fastestDelayBound(spread: config.latency.bleInterval + 0.005))
        return span.upperBound - span.lowerBound < deadline(for: t) ? span : nil
    }

    /// The candidates a staggered round turns to probes after its first probe set, in turn:
    /// the likeliest of the others holding at least 1%, up to `staggerSlots` − 1.
    private func staggeredDecoys(_ candidates: [ProbeSelector.Candidate], chosen: [Int]) -> [Int] {
        Array(candidates.indices.filter { !chosen.contains($0) && candidates[$0].mass >= 0.01 }
            .sorted { (candidates[$0].mass, -$0) > (candidates[$1].mass, -$1) }
            .prefix(config.staggerSlots - 1))
    }

    /// The sensor positions of the live candidates of every other tangible whose round is
    /// showing: this tangible's patches must not land on them (that tangible's sensor may be
    /// there, and its round would take the flip for an answer), and of the `reserved` ones
    /// (waiting their turn). Sorted by tangible id.
    private func guardedPositions(except t: TangibleID, reserved: [TangibleID] = []) -> [Vec2] {
        var out: [Vec2] = []
        for other in checks.keys.sorted() where other != t {
            guard let check = checks[other], check.currentRound != nil || reserved.contains(other) else { continue }
            for h in check.need.hypotheses where check.belief.weight(of: h.id) >= 1e-3 { out.append(h.sensorPosition) }
        }
        return out
    }

    private func locateRoundMayStart(_ t: TangibleID, placed: [Patch], reserved: [TangibleID], at time: Seconds) -> Bool {
        guard let search = searches[t], config.locateInQuiet || time >= quietUntil[t] ?? -.infinity else { return false }
        let guarded = guardedPositions(except: t, reserved: reserved)
        return search.decoys.allSatisfy { d in
            let c = search.frame.apply(d.center)
            return !placed.contains { $0.tangible != t && $0.center.distance(to: c) < $0.radius + d.radius + config.patchGap }
                && !guarded.contains { $0.distance(to: c) < d.radius + config.patchRadius + config.patchGap }
        }
    }

    private mutating func startCalibrationRound(_ t: TangibleID, at time: Seconds) {
        guard let search = searches[t], search.round == nil, search.isUsable else { return }
        let colour = colours[t]
        let probe = colour == nil ? nil
            : search.nextProbe(selector: selector(for: t))
        let phase: CheckRound.Phase = colour == nil ? .priming : (search.rounds > 0 && !search.lastRoundAnswered ? .resetting : .probing)
        searches[t]?.begin(CheckRound(colour: colour ?? config.primeColour, phase: phase,
                                      probed: [], drawn: [], plannedAt: time), probe: probe)
    }

    /// Discs over every cell in the reported colour (the whole footprint for a
    /// calibration, the circles around each lone touch for a locate), the probe painted over them.
    private mutating func calibrationPatches(_ t: TangibleID) -> [Patch] {
        guard let search = searches[t], let round = search.round else { return [] }
        let n = search.decoys.count + 1
        if search.patchIDs == nil { searches[t]?.patchIDs = (nextPatchID, nextPatchID + n - 1); nextPatchID += n }
        let ids = searches[t]!.patchIDs!
        let locate = search.isLocate
        var out = search.decoys.enumerated().map { k, d in
            Patch(id: ids.0 + k, tangible: t, center: search.frame.apply(d.center), radius: d.radius,
                  colour: round.colour, purpose: locate ? .decoy : .calibration)
        }
        if let p = search.probe, round.phase == .probing {
            out.append(Patch(id: ids.1, tangible: t, center: search.frame.apply(p.center), radius: p.radius,
                             colour: round.probeColour, purpose: locate ? .probe : .calibration))
        }
        return out
    }
}

/// Patches shown for a caller (`LightCheckScheduler.showTestPatches`).
private struct TestPatches: Sendable {
    var patches: [Patch] = []
    /// The caller's patch id → the scheduler's.
    var ids: [Int: Int] = [:]
    /// The overlay in which the patches as they are now first showed.
    var firstOverlay: UInt64?
}
