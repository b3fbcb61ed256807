// The PERC recognition state machine; its diagram is docs/perc-state-machine.md.

/// One PERC's recognition (thesis 3.3.2, DESIGN.md "PERC behaviour"):
///
///     notInRange → (link up) inRange → (field on) onSurface → tracked ⇄ resting
///     any on-surface state → (field off) inRange; any state → (link lost) notInRange
///
/// A value type: `handle(_:at:)` takes one event at one frame time and returns the events
/// that describe what it did. Every `(state, event)` pair is spelled out in one switch; the
/// engine computes the observations (candidates, track upkeep) and feeds them in as events.
public struct PercMachine: Sendable {
    public enum State: Hashable, Sendable {
        case notInRange
        case inRange
        case onSurface(Search)
        case tracked(Track, TrackedPhase, fieldOnAt: Seconds)
        case resting(Rest)
    }

    /// A tracked PERC's sub-state: two parts that change independently of each other. Every
    /// pair occurs: a window guess's link may drop, and come back, inside its window; a
    /// PERC taken unchecked may lose its link; and a window guess whose link came back inside
    /// its window stands unchecked (no display at the window's end) with its re-confirmation
    /// still open, which the next search ends at once (no display: provenance back).
    public struct TrackedPhase: Hashable, Sendable {
        public var hold: Hold
        public var link: Link

        public enum Hold: Hashable, Sendable {
            /// A window guess not yet stood: decided at the window's end, `until`.
            case guessPending(until: Seconds)
            /// Stood, confirmed by light, or recovered near its resting pose.
            case standing
            /// Taken without the light check it would have had, because no app drew the
            /// overlay (`guessedUnchecked`, or a window guess that stood only for that):
            /// once one draws, the guess is withdrawn and checked.
            case unchecked
        }

        public enum Link: Hashable, Sendable {
            case up
            /// Down: its markers still touch, so it is followed by its traces and reported
            /// `kept` until the link is back; `provenanceBefore` is the provenance it had.
            case lost(provenanceBefore: Provenance)
            /// Back: the provenance comes back once a light check of the pose confirms it is
            /// still this PERC (two of one pattern may have been swapped while it was down).
            /// Until then it stays `kept`.
            case reconfirming(Reconfirmation)
        }

        public init(hold: Hold, link: Link = .up) { self.hold = hold; self.link = link }
    }

    /// After a tracked PERC's link came back: the provenance to give back, and the
    /// stationary checks of its pose.
    public struct Reconfirmation: Hashable, Sendable {
        public var provenance: Provenance
        var checks: StationaryChecks
    }

    public struct Search: Hashable, Sendable {
        public var fieldOnAt: Seconds
        public var phase: SearchPhase
        /// Verifying phase: the window triples still in play.
        var candidates: [Candidate] = []
        /// Whether a sole surviving triple may be taken without a light check (not when
        /// window traces were left unexplained).
        var soleSurvivorAllowed = true
        var check: PendingCheck?
        /// Candidates a light check rejected (`Candidate.rejectionKey`), and until when they
        /// are not offered again.
        var rejected: [[TraceID]: Seconds] = [:]
        /// Placed on one marker touch with its orientation unresolved (state `placed`).
        public internal(set) var placed: Placement?
        /// While `placed`: the touches the locate that placed it searched (light put the sensor
        /// off the others' circles).
        var placedSearched: Set<TraceID> = []
        /// Pairs whose identify check was withdrawn because they stopped being offered
        /// (`Candidate.rejectionKey`; `EngineConfig.flappingPairsWait`), at most
        /// `maxFlappedPairs`.
        var flapped: Set<[TraceID]> = []
        /// Where the sensor would be on each candidate the last observation offered (window
        /// triples and their other turns, pairs, verifying and light-only candidates) while
        /// light can check, at most `maxCandidatePlaces`: the need names those it does not
        /// offer, at most `VerificationNeed.maxOtherPlaces`.
        var candidatePlaces: [Vec2] = []
        /// Window triples (`Candidate.traceSet`) seen fitting worse than `guessMaxResidual`,
        /// at most `maxRoughFits`: no guess is taken on them.
        var roughFits: Set<[TraceID]> = []
    }

    public struct Rest: Hashable, Sendable {
        public var pose: Pose
        /// When it came to rest (recovery only takes traces that began later).
        public var since: Seconds
        public var origin: InputOrigin
        /// The provenance the track had; a recovery near the pose restores it.
        public var provenanceBefore: Provenance
        public var fieldOnAt: Seconds
        /// Is it still there? The first check is due at `nextCheckAt`.
        var checks: StationaryChecks

        init(pose: Pose, since: Seconds, origin: InputOrigin, provenanceBefore: Provenance, fieldOnAt: Seconds, nextCheckAt: Seconds) {
            self.pose = pose; self.since = since; self.origin = origin; self.provenanceBefore = provenanceBefore
            self.fieldOnAt = fieldOnAt; checks = StationaryChecks(nextAt: nextCheckAt)
        }
    }

    public enum Event: Sendable {
        case link(connected: Bool)
        case field(on: Bool)
        /// A tracked PERC's upkeep for this frame.
        case track(TrackUpdate)
        /// What is open to a searching (or guessing, or resting) PERC this frame.
        case search(SearchObservation)
        /// A light-check answer; `current` is the confirmed hypothesis rebuilt from the
        /// traces' current positions, nil when its traces are gone or taken.
        case outcome(VerificationOutcome, current: Candidate?)
    }

    public typealias Action = TangibleEvent

    private let constants: SharedConstant<(definition: TangibleDefinition, config: EngineConfig)>
    public var definition: TangibleDefinition { constants.value.definition }
    public var config: EngineConfig { constants.value.config }
    public private(set) var state: State = .notInRange
    private var nextRequest: UInt64 = 1

    public init(definition: TangibleDefinition, config: EngineConfig, state: State = .notInRange) {
        constants = SharedConstant((definition, config)); self.state = state
    }

    /// The machine of a tangible whose definition was replaced (`Engine.replace`): its light
    /// check requests go on from `old`'s. Starting again at 1 gave the new machine's first
    /// request the id of the old machine's open one, and the scheduler took it for the same
    /// check: it carried on with the old definition's evidence, and rejected the right triple
    /// (ControlCLITests' pairing walk-through, about 1 run in 30: "PERC red" then located 12 mm
    /// off by one touch).
    public init(replacing old: PercMachine, definition: TangibleDefinition, config: EngineConfig, state: State) {
        self.init(definition: definition, config: config, state: state)
        nextRequest = old.nextRequest
    }

    // MARK: The transition table

    public mutating func handle(_ event: Event, at time: Seconds) -> [Action] {
        var out: [Action] = []
        // One handler per state, as libinput's tap machine is written.
        switch state {
        case .notInRange: notInRange(event, time, &out)
        case .inRange: inRange(event, time, &out)
        case .onSurface(let s): onSurface(s, event, time, &out)
        case .tracked(let t, let p, let fieldOnAt): tracked(t, p, fieldOnAt: fieldOnAt, event, time, &out)
        case .resting(let r): resting(r, event, time, &out)
        }
        return out
    }

    private mutating func notInRange(_ event: Event, _ time: Seconds, _ out: inout [Action]) {
        switch event {
        case .link(connected: true):
            go(.inRange, .linkConnected, &out)
        case .field(on: true):
            // The link was up before we listened (service restart): field-on implies it.
            go(.onSurface(Search(fieldOnAt: time, phase: .window)), .fieldOn, &out)
        case .field(on: false):
            go(.inRange, .fieldOff, &out)
        case .link(connected: false), .outcome:
            break
        case .track, .search:
            out.append(impossible(event))
        }
    }

    private mutating func inRange(_ event: Event, _ time: Seconds, _ out: inout [Action]) {
        switch event {
        case .link(connected: false):
            go(.notInRange, .linkLost, &out)
        case .field(on: true):
            go(.onSurface(Search(fieldOnAt: time, phase: .window)), .fieldOn, &out)
        case .link(connected: true), .field(on: false), .outcome:
            break
        case .track, .search:
            out.append(impossible(event))
        }
    }

    /// `event` cannot reach this state (an outcome can: it may answer a check of an earlier
    /// state, and is dropped quietly). Logged and counted by the service as an engine bug.
    private func impossible(_ event: Event) -> Action {
        let name: String
        switch event {
        case .link: name = "link"
        case .field: name = "field"
        case .track: name = "track"
        case .search: name = "search"
        case .outcome: name = "outcome"
        }
        return .impossibleEvent(state: stateName, event: name)
    }

    // MARK: onSurface: searching

    private mutating func onSurface(_ s: Search, _ event: Event, _ time: Seconds, _ out: inout [Action]) {
        switch event {
        case .link(connected: false):
            go(.notInRange, .linkLost, &out)
        case .field(on: false):
            go(.inRange, .fieldOff, &out)
        case .search(let obs):
            var s = s
            if s.placed != nil { keepPlaced(&s, obs, &out) }
            search(s, obs, time, &out)
        case .outcome(let o, let current):
            answered(s, o, current: current, time, &out)
        case .link(connected: true), .field(on: true):
            break
        case .track:
            out.append(impossible(event))
        }
    }

    /// A light check's answer while searching.
    private mutating func answered(_ s: Search, _ o: VerificationOutcome, current: Candidate?, _ time: Seconds, _ out: inout [Action]) {
        var s = s
        guard let check = s.check, check.request == o.request else { return }
        out.append(.checkAnswered(request: o.request, result: o.result))
        s.check = nil
        switch o.result {
        case .confirmed(let h):
            if let c = current, check.candidate(hypothesis: h) != nil {
                if check.kind == .locate {
                    let rivals = locateRivals(of: c, in: check)
                    if !rivals.isEmpty {
                        // Where the sensor is, more than one pose puts it: none is taken.
                        // Those touches rest; a second marker touch settles it (thesis).
                        for tr in Set(([c] + rivals).flatMap(\.traceSet)) { s.rejected[[tr]] = time + config.recheckRejectedAfter }
                        let poses = 1 + Set(rivals.map(\.traces)).count
                        out.append(.locateAmbiguous(request: o.request, poses: poses))
                        // When every such pose stands on this one touch, the PERC is there and
                        // only its turn is unknown: placed, not tracked.
                        guard s.placed == nil, let placed = placement(c, rivals: rivals, poses: poses, at: time) else { break }
                        s.placed = placed
                        s.placedSearched = Set(check.candidates.flatMap(\.traceSet))
                        out.append(.tracesAssigned([placed.touch], reason: .placedUnresolved))
                        go(.onSurface(s), .placedUnresolved, &out)
                        return
                    }
                }
                take(c, provenance: .confirmed, .standing, fieldOnAt: s.fieldOnAt,
                     check.kind == .locate ? .located : .lightConfirmed, time, &out)
                return
            }
        case .rejected:
            for c in check.candidates {
                s.rejected[c.rejectionKey] = time + config.recheckRejectedAfter
            }
            s.candidates.removeAll { c in check.candidates.contains { $0.sameCandidate(c) } }
        case .inconclusive:
            break
        }
        state = .onSurface(s)
    }

    // MARK: tracked

    private mutating func tracked(_ t: Track, _ p: TrackedPhase, fieldOnAt: Seconds, _ event: Event, _ time: Seconds,
                                  _ out: inout [Action]) {
        switch event {
        case .field(on: true):
            break
        case .link(connected: false):
            linkLost(t, p, fieldOnAt: fieldOnAt, &out)
        case .link(connected: true):
            linkBack(t, p, fieldOnAt: fieldOnAt, time, &out)
        case .field(on: false):
            releaseAll(t, .fieldOff, &out)
            go(.inRange, .fieldOff, &out)
        case .track(let u):
            out += u.events
            guard u.isEmpty else {
                state = .tracked(u.track, p, fieldOnAt: fieldOnAt)
                break
            }
            switch p.link {
            case .up: rest(u.track, provenanceBefore: u.track.provenance, fieldOnAt: fieldOnAt, time, &out)
            case .reconfirming(let r): rest(u.track, provenanceBefore: r.provenance, fieldOnAt: fieldOnAt, time, &out)
            case .lost:
                // Its traces ended while its link was down: lifted and carried away.
                go(.notInRange, .linkLost, &out)
            }
        case .search(let obs):
            switch (p.hold, p.link) {
            case (.guessPending(let until), _):
                guessing(t, p, until: until, fieldOnAt: fieldOnAt, obs, time, &out)
            case (.standing, .reconfirming(let r)), (.unchecked, .reconfirming(let r)):
                reconfirming(t, p, r, fieldOnAt: fieldOnAt, obs, time, &out)
            case (.unchecked, .up):
                // An app draws now: a guess taken only because nobody could check it is withdrawn
                // and checked like any other placement.
                guard obs.canCheck else { break }
                releaseAll(t, .guessWithdrawn, &out)
                go(.onSurface(Search(fieldOnAt: fieldOnAt, phase: .lightOnly)), .guessWithdrawn, &out)
                out.append(.searchPhase(.lightOnly, reason: .guessWithdrawn))
            case (.standing, .up), (.standing, .lost), (.unchecked, .lost):
                break
            }
        case .outcome(let o, _):
            guard case .reconfirming(let r) = p.link else { break }
            reconfirmationAnswered(t, p, r, o, fieldOnAt: fieldOnAt, time, &out)
        }
    }

    /// All its traces ended with the field still on: the pose is kept.
    private mutating func rest(_ t: Track, provenanceBefore: Provenance, fieldOnAt: Seconds, _ time: Seconds, _ out: inout [Action]) {
        let rest = Rest(pose: t.pose, since: time, origin: t.origin, provenanceBefore: provenanceBefore,
                        fieldOnAt: fieldOnAt, nextCheckAt: time + config.restingGrace)
        go(.resting(rest), .tracesLost, &out)
        out.append(.provenance(.kept))
    }

    /// The radio went, not necessarily the PERC: while its traces last it is followed by
    /// them, reported `kept` (the sensors cannot answer), until the link is back.
    private mutating func linkLost(_ t: Track, _ p: TrackedPhase, fieldOnAt: Seconds, _ out: inout [Action]) {
        var t = t, p = p
        switch p.link {
        case .lost:
            return
        case .reconfirming(let waiting):
            // Gone again before its re-confirmation: wait for the link once more.
            p.link = .lost(provenanceBefore: waiting.provenance)
        case .up:
            p.link = .lost(provenanceBefore: t.provenance)
            t.provenance = .kept
            out.append(.provenance(.kept))
        }
        state = .tracked(t, p, fieldOnAt: fieldOnAt)
    }

    /// Back with its traces unbroken. (The link reads the field at once after connecting: a
    /// PERC lifted meanwhile goes inRange with that reading.) Two PERCs of one pattern may
    /// have been swapped meanwhile, so the provenance it had comes back once a light check of
    /// its pose confirms it (`reconfirming`); with no display, or for a guess nobody could
    /// check, it comes back at once.
    private mutating func linkBack(_ t: Track, _ p: TrackedPhase, fieldOnAt: Seconds, _ time: Seconds, _ out: inout [Action]) {
        guard case .lost(let before) = p.link else { return }
        var t = t, p = p
        if p.hold == .unchecked || definition.lightSensorOffset == nil {
            p.link = .up
            t.provenance = before
            out.append(.provenance(before))
        } else {
            p.link = .reconfirming(Reconfirmation(provenance: before, checks: StationaryChecks(nextAt: time)))
        }
        state = .tracked(t, p, fieldOnAt: fieldOnAt)
    }

    /// A window guess while its window is open, and at the window's end.
    private mutating func guessing(_ t: Track, _ p: TrackedPhase, until guessUntil: Seconds, fieldOnAt: Seconds,
                                   _ obs: SearchObservation, _ time: Seconds, _ out: inout [Action]) {
        if time < guessUntil {
            // Another triple of the window fits too, so the guess cannot stand at the
            // window's end: it is withdrawn now and light asked at once (the window goes
            // on, and triples that form later in it join the check).
            guard checksRivals(obs.windowTriples, obs) else { return }
            releaseAll(t, .guessWithdrawn, &out)
            let s = Search(fieldOnAt: fieldOnAt, phase: .window)
            go(.onSurface(s), .guessWithdrawn, &out)
            search(s, obs, time, &out)
            return
        }
        // End of the window: the guess stands if it is still the only window triple and
        // no other tangible could take it (thesis 3.3.2 Detection).
        let mine = t.traces.sorted()
        let rivals = obs.windowTriples.filter { $0.traceSet != mine }
        let contested = obs.contested.contains(mine)
        let unexplained = !obs.windowTraces.subtracting(mine).isEmpty
        // With no light check possible the guess stands unless another tangible could take it.
        let clean = rivals.isEmpty && obs.windowTuples.isEmpty && !contested && !unexplained
        if clean || (!obs.canCheck && !contested) {
            var p = p
            p.hold = clean ? .standing : .unchecked
            state = .tracked(t, p, fieldOnAt: fieldOnAt)
            out.append(.guessStood)
        } else {
            releaseAll(t, .guessWithdrawn, &out)
            let s = Search(fieldOnAt: fieldOnAt, phase: .verifying, candidates: obs.windowTriples + obs.windowTuples,
                           soleSurvivorAllowed: !unexplained)
            go(.onSurface(s), .guessWithdrawn, &out)
            out.append(.searchPhase(.verifying, reason: .guessWithdrawn))
        }
    }

    /// Back from a link loss: one stationary light check of the pose while it lies still;
    /// with no display the provenance comes back unchecked.
    private mutating func reconfirming(_ t: Track, _ p: TrackedPhase, _ r: Reconfirmation, fieldOnAt: Seconds,
                                       _ obs: SearchObservation, _ time: Seconds, _ out: inout [Action]) {
        var t = t, p = p, r = r
        if !obs.canCheck {
            t.provenance = r.provenance
            p.link = .up
            state = .tracked(t, p, fieldOnAt: fieldOnAt)
            out.append(.provenance(t.provenance))
            return
        }
        if !obs.trackIsStill {
            r.checks.check = nil   // a check of a moving pose would be answered by the background
        } else if r.checks.isDue(time) {
            out.append(r.checks.ask(pose: t.pose, traces: t.slots, origin: t.origin, request: newRequest(), at: time))
        }
        p.link = .reconfirming(r)
        state = .tracked(t, p, fieldOnAt: fieldOnAt)
    }

    /// A light answer while re-confirming: confirmed, the provenance comes back; failed for
    /// good, another PERC lies there.
    private mutating func reconfirmationAnswered(_ t: Track, _ p: TrackedPhase, _ r: Reconfirmation, _ o: VerificationOutcome,
                                                 fieldOnAt: Seconds, _ time: Seconds, _ out: inout [Action]) {
        var t = t, p = p, r = r
        guard let answer = r.checks.answer(o, at: time, config: config, &out) else { return }
        switch answer {
        case .confirmed:
            t.provenance = r.provenance
            p.link = .up
            out.append(.provenance(r.provenance))
        case .failedForGood:
            // Its sensor does not see its pose: another PERC lies there (swapped while
            // the link was down). Let the traces go and search afresh.
            releaseAll(t, .checksFailed, &out)
            go(.onSurface(Search(fieldOnAt: fieldOnAt, phase: .lightOnly)), .stationaryChecksFailed, &out)
            return
        case .rejected, .inconclusive:
            p.link = .reconfirming(r)
        }
        state = .tracked(t, p, fieldOnAt: fieldOnAt)
    }

    // MARK: resting

    private mutating func resting(_ r: Rest, _ event: Event, _ time: Seconds, _ out: inout [Action]) {
        switch event {
        case .link(connected: false):
            go(.notInRange, .linkLost, &out)
        case .field(on: false):
            go(.inRange, .fieldOff, &out)
        case .search(let obs):
            if var rec = obs.nearPose {
                rec.track.provenance = r.provenanceBefore
                rec.track.since = time
                out += rec.events
                go(.tracked(rec.track, TrackedPhase(hold: .standing), fieldOnAt: r.fieldOnAt), .recoveredNearPose, &out)
                out.append(.provenance(r.provenanceBefore))
            } else if !obs.canCheck {
                // Nobody can show a patch: an open stationary check is dropped unanswered.
                if r.checks.check != nil { var r = r; r.checks.check = nil; r.checks.nextAt = time + config.stationaryRetryDelay; state = .resting(r) }
            } else if r.checks.isDue(time) {
                var r = r
                out.append(r.checks.ask(pose: r.pose, traces: [nil, nil, nil], origin: r.origin, request: newRequest(), at: time))
                state = .resting(r)
            }
        case .outcome(let o, _):
            var r = r
            guard let answer = r.checks.answer(o, at: time, config: config, &out) else { break }
            if answer == .failedForGood {
                go(.onSurface(Search(fieldOnAt: r.fieldOnAt, phase: .lightOnly)), .stationaryChecksFailed, &out)
                return
            }
            state = .resting(r)
        case .link(connected: true), .field(on: true):
            break
        case .track:
            out.append(impossible(event))
        }
    }

    // MARK: Searching (onSurface)

    private mutating func search(_ s: Search, _ obs: SearchObservation, _ time: Seconds, _ out: inout [Action]) {
        // Nothing to offer and nothing asked: the search stays as it is (the common frame of
        // a PERC searching an empty surface; no buffers are copied or rebuilt).
        if s.phase == .lightOnly, s.check == nil, obs.triples.isEmpty, obs.tuples.isEmpty, obs.loneTouches.isEmpty { return }
        var s = s
        if obs.canCheck, let offset = definition.lightSensorOffset { s.candidatePlaces = Self.sensorPlaces(obs, offset) }
        let wasVerifying = s.phase == .verifying
        if s.phase == .window, searchWindow(&s, obs, time, &out) { return }
        if !obs.canCheck {
            // No patch can be shown, so nothing may be concluded from the light sensor: no
            // check is asked, and the PERC is guessed from traces that began since its field
            // came on (provenance `guessed`).
            s.check = nil
            let pool = s.phase == .verifying ? (wasVerifying ? obs.verifying : s.candidates) : obs.triples
            if let c = uncheckedGuess(pool, s, obs, time) {
                take(c, provenance: .guessed, .unchecked, fieldOnAt: s.fieldOnAt, .guessedUnchecked, time, &out)
                return
            }
            if s.phase == .verifying { s.candidates = wasVerifying ? obs.verifying : s.candidates }
            state = .onSurface(s)
            return
        }
        if s.phase == .verifying {
            // Keep the candidates that still fit, with their current poses.
            if wasVerifying { s.candidates = obs.verifying }
            // A sole surviving triple is taken; a tuple is never guessed (thesis: after the
            // window only light-confirmed tuples).
            if s.candidates.count == 1, !s.candidates[0].isTuple, s.soleSurvivorAllowed, !obs.isContested(s.candidates[0]),
               !obs.isAwaited(s.candidates[0]) {
                take(s.candidates[0], provenance: .guessed, .standing, fieldOnAt: s.fieldOnAt, .soleSurvivor, time, &out)
                return
            }
            if s.candidates.isEmpty {
                s.phase = .lightOnly
                out.append(.searchPhase(.lightOnly, reason: .windowExpired))
            } else if coveredByLocate(s.candidates, s) {
                locate(obs.loneTouches, into: &s, time, &out)
            } else {
                request(s.candidates, into: &s, time, &out)
            }
        }
        if s.phase == .lightOnly { lightOnlyRound(&s, obs, time, &out) }
        state = .onSurface(s)
    }

    /// The window phase: a guess, rivals checked, or an early check while the window is open;
    /// at its end, a guess or the verifying phase. True when it decided the frame (a take, or
    /// the state set).
    private mutating func searchWindow(_ s: inout Search, _ obs: SearchObservation, _ time: Seconds, _ out: inout [Action]) -> Bool {
        let windowEnd = s.fieldOnAt + config.timeWindow
        let w = obs.windowTriples
        for c in w where c.residual > config.guessMaxResidual {
            if s.roughFits.count >= Self.maxRoughFits { s.roughFits.removeAll() }
            s.roughFits.insert(c.traceSet)
        }
        // A sole window triple that fits its pattern in more than one way (a nearly
        // symmetric one: each a different turn) that its touches' means cannot tell
        // apart yet is no guess: light picks the turn. With no light, the guess waits for
        // more samples, up to the window's end (then the likeliest turn, `w[0]`).
        let turns = w.count == 1 ? obs.windowAlternatives.filter { $0.traceSet == w[0].traceSet } : []
        if time < windowEnd {
            if w.count == 1, !obs.isContested(w[0]) {
                // (A PERC not yet on the surface may announce it: light decides, `awaited`.)
                // (Nor one that fits worse than `guessMaxResidual` while light can check it.)
                if turns.isEmpty, !obs.isAwaited(w[0]), fitsForAGuess(w[0], s, obs) {
                    take(w[0], provenance: .guessed, .guessPending(until: windowEnd), fieldOnAt: s.fieldOnAt, .windowGuess, time, &out)
                    return true
                }
                if obs.canCheck { request(w + turns, into: &s, time, &out) } else { s.check = nil }
                state = .onSurface(s)
                return true
            }
            // No triple yet, but pairs of traces that began in the window (a marker that
            // did not register): from `EngineConfig.pairCheckAfter` on, light is asked now,
            // not at the window's end. A third touch inside the window still makes the
            // triple a window guess; at the window's end the check goes on with the answers
            // it has. A lone touch waits longer (`earlyLocateAfter`): a second touch is likely.
            if !obs.canCheck {
                s.check = nil  // no patch can be shown: a check begun in the window ends
            } else if checksRivals(w, obs) {
                // More than one triple fits: no guess can stand, so light is asked now.
                request((w + obs.windowAlternatives).filter { s.rejected[$0.rejectionKey] == nil }, into: &s, time, &out)
            } else if w.isEmpty, !obs.windowTuples.isEmpty, time >= s.fieldOnAt + config.pairCheckAfter(besideOtherPercs: obs.besideOtherPercs),
                      !coveredByLocate(obs.windowTuples, s) {
                request(obs.windowTuples, into: &s, time, &out)
            } else if w.isEmpty, obs.windowTuples.isEmpty || coveredByLocate(obs.windowTuples, s),
                      time >= s.fieldOnAt + config.earlyLocateAfter, s.check?.kind != .identify {
                // Nor a pair: one touch only, so far. Its sensor is searched now (a
                // triple or pair that comes later in the window takes over).
                locate(obs.loneTouches, into: &s, time, &out)
            }
            state = .onSurface(s)
            return true
        }
        let unexplained = w.count == 1 && !obs.windowTraces.subtracting(w[0].traceSet).isEmpty
        let rough = w.count == 1 && !fitsForAGuess(w[0], s, obs)
        if w.isEmpty {
            s.phase = .lightOnly
            out.append(.searchPhase(.lightOnly, reason: .windowExpired))
        } else if w.count == 1, obs.windowTuples.isEmpty, !unexplained, !obs.isContested(w[0]), !obs.isAwaited(w[0]),
                  turns.isEmpty || !obs.canCheck, !rough {
            take(w[0], provenance: .guessed, .standing, fieldOnAt: s.fieldOnAt, .windowGuess, time, &out)
            return true
        } else {
            s.phase = .verifying
            s.soleSurvivorAllowed = !unexplained && !rough
            s.candidates = w + (obs.canCheck ? obs.windowAlternatives : []) + obs.windowTuples
            out.append(.searchPhase(.verifying, reason: .guessWithdrawn))
        }
        return false
    }

    /// The light-only phase: rank the open triples and pairs and check them, else locate the
    /// sensor around lone touches.
    private mutating func lightOnlyRound(_ s: inout Search, _ obs: SearchObservation, _ time: Seconds, _ out: inout [Action]) {
        s.rejected = s.rejected.filter { $0.value > time }
        var pool = (obs.triples + obs.tuples).filter { s.rejected[$0.rejectionKey] == nil }
        // While still lone touches are searched, candidates made with a moving touch (a
        // PERC set down lies still; a finger sliding through a side's length) or with a
        // touch older than the window (a finger there before the PERC came) wait for the
        // search to end: each switch restarted it from nothing.
        // So do pairs of touches of a triple light rejected while other lone touches are
        // searched (`rejectedTriplesLast`).
        let inRejected = rejectedTripleTraces(s)
        let others = obs.loneTouches.contains { !inRejected.contains($0.trace) && s.rejected[[$0.trace]] == nil }
        // And, while a locate runs, pairs with a touch it searches that were there when it
        // could start (`pairsWaitForLocate`): its poses include theirs.
        // So do pairs whose check was withdrawn when they stopped being offered (`flappingPairsWait`).
        if !obs.loneTouches.isEmpty, s.check?.kind != .identify {
            let rest = pool.filter { !($0.isMoving || $0.earliestBegin < s.fieldOnAt - config.timeWindow
                || (others && $0.isTuple && $0.traceSet.allSatisfy(inRejected.contains))) }
            if rest.isEmpty || coveredByLocate(rest, s, flapped: true) { pool = [] }
        }
        // Placed: its second marker touches after it was set down. A pair with a touch
        // that lay there before the PERC came (a resting finger a side's length away) is
        // no second marker (bench accuracy, seed 2 case 10: such a pair was confirmed).
        if s.placed != nil { pool.removeAll { $0.earliestBegin < s.fieldOnAt - config.timeWindow } }
        let ranked = pool.sorted { a, b in
            if a.isTuple != b.isTuple { return !a.isTuple }
            if a.isMoving != b.isMoving { return !a.isMoving }
            let da = abs(a.latestBegin - s.fieldOnAt), db = abs(b.latestBegin - s.fieldOnAt)
            if da != db { return da < db }
            return a.traces.map { $0 ?? 0 }.lexicographicallyPrecedes(b.traces.map { $0 ?? 0 })
        }
        // No triple or pair left to check: the PERC may have made one touch only, and
        // light can look for its sensor around the lone touches (a running identify
        // check whose touch dropped out waits `dropoutGrace` first).
        if !pool.isEmpty || s.check?.kind == .identify { request(ranked, into: &s, time, &out) }
        if pool.isEmpty && s.check?.kind != .identify { locate(obs.loneTouches, into: &s, time, &out) }
    }

    /// Whether a sole window triple may be a guess as far as its fit goes: within
    /// `guessMaxResidual`, now and every frame since it formed (a finger's triple can settle
    /// within it: `bench accuracy --seed 6 --show 506`), unless light cannot check it.
    /// (`searchWindow` notes this frame's rough triples in `roughFits` first.)
    private func fitsForAGuess(_ c: Candidate, _ s: Search, _ obs: SearchObservation) -> Bool {
        !obs.canCheck || !s.roughFits.contains(c.traceSet)
    }

    /// Bound of `Search.roughFits` (cleared when full).
    static let maxRoughFits = 64

    /// Whether the window triples `w` are rivals light is asked about now rather than at the
    /// window's end (`checkRivalsInWindow`): more than one fits, so no guess can stand. Only
    /// once all of them lie still (a touch that just began may still settle; a candidate that
    /// flickered in and out of the check would take its patch away from where the sensor may
    /// be), and not when another searching PERC could take one of them (both would draw on
    /// the same places; that is decided at the window's end).
    private func checksRivals(_ w: [Candidate], _ obs: SearchObservation) -> Bool {
        config.checkRivalsInWindow && obs.canCheck && w.count > 1 && w.allSatisfy { !$0.isMoving && !obs.isContested($0) }
    }

    /// Keeps or asks the locate check for a PERC's lone touches (those not resting after a
    /// rejection): every pose with one of its markers on one of them, turned in
    /// `locateTurnStep` steps. A running one stays while its touches are still offered
    /// (some may end); it is withdrawn when none is left.
    private mutating func locate(_ lone: [LoneTouch], into s: inout Search, _ time: Seconds, _ out: inout [Action]) {
        var touches = lone.filter { s.rejected[[$0.trace]] == nil }
        // Touches that began after the time window (`lateTouchReach`) only once none inside
        // it is left: one late marker touch is rare, and each touch joining a running locate
        // starts it again.
        func late(_ t: LoneTouch) -> Bool { t.began - s.fieldOnAt > config.timeWindow }
        if touches.contains(where: { !late($0) }) { touches.removeAll(where: late) }
        if config.rejectedTriplesLast {
            let inRejected = rejectedTripleTraces(s)
            touches = Array((touches.filter { !inRejected.contains($0.trace) } + touches.filter { inRejected.contains($0.trace) })
                .prefix(min(config.maxLoneTouches, 8)))
        }
        guard !touches.isEmpty, definition.lightSensorOffset != nil, config.locateTurnStep > 0 else {
            s.check = nil
            return
        }
        if let check = s.check, check.kind == .locate {
            let searched = Set(check.candidates.flatMap(\.traceSet))
            if touches.allSatisfy({ searched.contains($0.trace) }) { return }
        }
        // Not below 0.5° whatever the config says (a recording carries its own): at most 720
        // turns per marker and touch.
        let steps = max(1, Int((360 / max(0.5, config.locateTurnStep)).rounded()))
        let markers = definition.markers
        var candidates: [Candidate] = []
        candidates.reserveCapacity(touches.count * markers.count * steps)
        for touch in touches {
            for m in markers.indices {
                var slots = [TraceID?](repeating: nil, count: markers.count)
                slots[m] = touch.trace
                for k in 0..<steps {
                    let angle = Double(k) * 2 * .pi / Double(steps)
                    let pose = Pose(position: touch.position - markers[m].rotated(by: angle), angle: angle)
                    candidates.append(Candidate(traces: slots, pose: pose, residual: 0, origin: touch.origin,
                                                latestBegin: touch.began, earliestBegin: touch.began,
                                                isMoving: false, velocity: .zero, fittedHistory: 0))
                }
            }
        }
        s.check = PendingCheck(request: newRequest(), kind: .locate, candidates: candidates, isMoving: false, velocity: .zero)
        out.append(.checkRequested(request: s.check!.request, kind: .locate, hypotheses: candidates.count))
    }

    /// Whether every one of `candidates` is a pair the running locate covers: with a touch
    /// it searches (its poses include the pair's), both touches begun by the time light could
    /// first be asked (`pairsWaitForLocate`), one begun after the time window (`latePairsWait`,
    /// a finger likelier than a late marker: `bench accuracy --seed 6 --show 999`), or — with
    /// `flapped` — its identify check withdrawn because it stopped being offered
    /// (`flappingPairsWait`: a pair at the edge of the side length's tolerance, offered one
    /// frame in many, took the sensor from the locate each time it came back, `bench accuracy
    /// --seed 7 --show 6856`).
    private func coveredByLocate(_ candidates: [Candidate], _ s: Search, flapped: Bool = false) -> Bool {
        guard let check = s.check, check.kind == .locate, !candidates.isEmpty else { return false }
        let early = config.pairsWaitForLocate, flappedWait = flapped && config.flappingPairsWait, late = config.latePairsWait
        guard early || flappedWait || late else { return false }
        let searched = Set(check.candidates.flatMap(\.traceSet))
        return candidates.allSatisfy { c in
            c.isTuple && c.traceSet.contains(where: searched.contains)
                && ((early && c.latestBegin <= s.fieldOnAt + config.earlyLocateAfter)
                    || (flappedWait && s.flapped.contains(c.rejectionKey))
                    || (late && c.latestBegin > s.fieldOnAt + config.timeWindow))
        }
    }

    /// Bound of `Search.flapped` (cleared when full).
    static let maxFlappedPairs = 64

    /// The traces of the triples a light check rejected (still resting), with
    /// `rejectedTriplesLast`; empty without it.
    private func rejectedTripleTraces(_ s: Search) -> Set<TraceID> {
        guard config.rejectedTriplesLast else { return [] }
        return Set(s.rejected.keys.filter { $0.count == 3 }.joined())
    }

    /// A placed PERC's upkeep: its touch moved (both points follow), ended (`tracesLost`), or
    /// another free touch could be the marker it stands on (`placementContested`).
    private mutating func keepPlaced(_ s: inout Search, _ obs: SearchObservation, _ out: inout [Action]) {
        guard let p = s.placed else { return }
        if obs.placedRivals == 0, let position = obs.placedTouch {
            s.placed = p.moved(to: position)
            state = .onSurface(s)
            return
        }
        s.placed = nil
        s.placedSearched = []
        let contested = obs.placedRivals > 0
        out.append(.traceReleased(p.touch, reason: contested ? .guessWithdrawn : .ended))
        go(.onSurface(s), contested ? .placementContested : .tracesLost, &out)
    }

    /// The placement of a located pose `c` whose `rivals` all stand on its one touch (another
    /// marker on it), nil when one stands elsewhere or placements are not reported.
    private func placement(_ c: Candidate, rivals: [Candidate], poses: Int, at time: Seconds) -> Placement? {
        guard config.reportUnresolvedPlacements, c.traceSet.count == 1, rivals.allSatisfy({ $0.traceSet == c.traceSet }),
              let offset = definition.lightSensorOffset, let touch = c.traceSet.first,
              let m = c.traces.firstIndex(where: { $0 != nil }) else { return nil }
        return Placement(touch: touch, touchPosition: c.pose.apply(definition.markers[m]),
                         sensor: c.pose.apply(offset), poses: poses, since: time)
    }

    /// The other poses of a locate check that put the light sensor within `locateAmbiguity`
    /// of where `c` puts it with another marker or touch on the touch (light cannot tell them apart).
    private func locateRivals(of c: Candidate, in check: PendingCheck) -> [Candidate] {
        guard let offset = definition.lightSensorOffset else { return [] }
        let sensor = c.pose.apply(offset)
        return check.candidates.filter { $0.traces != c.traces && $0.pose.apply(offset).distance(to: sensor) < config.locateAmbiguity }
    }

    /// The triple to take when no light check can run: not contested, not rejected, all its
    /// traces began after the field came on (less one time window: the notification may
    /// arrive late), lying still before moving, the best fit first.
    private func uncheckedGuess(_ pool: [Candidate], _ s: Search, _ obs: SearchObservation, _ time: Seconds) -> Candidate? {
        pool.filter { c in
            !c.isTuple && !obs.isContested(c) && (s.rejected[c.rejectionKey].map { $0 <= time } ?? true)
                && c.earliestBegin >= s.fieldOnAt - config.timeWindow
        }.min { a, b in
            if a.isMoving != b.isMoving { return !a.isMoving }
            if a.residual != b.residual { return a.residual < b.residual }
            return a.traces.map { $0 ?? 0 }.lexicographicallyPrecedes(b.traces.map { $0 ?? 0 })
        }
    }

    /// Keeps, renews or withdraws the identify check for `candidates` (best first).
    private mutating func request(_ candidates: [Candidate], into s: inout Search, _ time: Seconds, _ out: inout [Action]) {
        var candidates = candidates
        if config.hypothesesOnce {
            // The best of each assignment (they come best first).
            var seen: Set<[TraceID?]> = []
            candidates.removeAll { !seen.insert($0.traces).inserted }
        }
        var chosen = candidates.filter { !$0.isMoving }
        var moving = false
        if chosen.isEmpty && config.checkMovingWithPrediction {
            chosen = candidates
            moving = !chosen.isEmpty
        }
        // A tuple whose sensor position nearly coincides with a triple's cannot be told apart
        // from it by light (the patches overlap); the triple explains more touches, so the
        // tuple is left out. (Tuples among themselves stay: one of them is right.)
        // A marker touches no earlier than this; a touch that began before is a finger.
        let windowStart = s.fieldOnAt - config.timeWindow
        func inWindow(_ c: Candidate) -> Bool { c.earliestBegin >= windowStart }
        if let offset = definition.lightSensorOffset {
            // First (`oldTouchNotAMarker`): a hypothesis with a touch that began before the
            // field-on's time window goes when one whose touches all began in it puts the
            // sensor in the same place. A marker touches within the window, so that touch is
            // a finger lying where a marker would be (`bench accuracy` seed 2 case 3661: a
            // finger down 0.59 s before the field-on where the untouched marker would be; light
            // confirmed the triple with it, and a pair with it tied with the PERC's own pair).
            if config.oldTouchNotAMarker {
                let fresh = chosen.filter(inWindow).map { $0.pose.apply(offset) }
                chosen.removeAll { c in
                    !inWindow(c)
                        && fresh.contains { $0.distance(to: c.pose.apply(offset)) < config.minHypothesisSeparation }
                }
            }
            let triples = chosen.filter { !$0.isTuple }.map { $0.pose.apply(offset) }
            chosen.removeAll { c in
                c.isTuple && triples.contains { $0.distance(to: c.pose.apply(offset)) < config.minHypothesisSeparation }
            }
        }
        if config.windowTouchesFirst, chosen.count > config.maxHypotheses {
            chosen = chosen.filter(inWindow) + chosen.filter { !inWindow($0) }  // (`windowTouchesFirst`)
        }
        chosen = Array(chosen.prefix(config.maxHypotheses))
        guard !chosen.isEmpty else {
            // A marker touch that dropped out takes every candidate of a running check with
            // it until it comes back as a new trace, a few frames later.
            if !waitsForItsCandidates(&s, time) {
                if config.flappingPairsWait, let check = s.check, check.kind == .identify {
                    if s.flapped.count >= Self.maxFlappedPairs { s.flapped.removeAll() }
                    for c in check.candidates where c.isTuple { s.flapped.insert(c.rejectionKey) }
                }
                s.check = nil
            }
            return
        }
        let v = chosen.reduce(Vec2.zero) { $0 + $1.velocity } / Double(chosen.count)
        // The running check goes on while any of its candidates is still offered: candidates
        // that come and go (a tuple at the edge of the tolerance, a third touch arriving)
        // join or leave it without throwing away the answers gathered so far. A check
        // replaced by a new request would also take a late answer to the old one's patches
        // for an answer to its own.
        if var check = s.check, check.kind == .identify, check.carryOver(to: chosen) {
            check.velocity = v
            check.isMoving = moving
            s.check = check
            return
        }
        // None of its candidates is offered this frame, others are: candidates at the edge of
        // a tolerance flap (a still pair gives way to a moving one for a frame).
        if waitsForItsCandidates(&s, time) { return }
        s.check = PendingCheck(request: newRequest(), kind: .identify, candidates: chosen, isMoving: moving, velocity: v)
        out.append(.checkRequested(request: s.check!.request, kind: .identify, hypotheses: chosen.count))
    }

    /// Whether the running identify check of a still PERC, none of whose candidates is
    /// offered now, waits for them (`dropoutGrace`) rather than going, with its evidence, to
    /// be asked again under a new request.
    private func waitsForItsCandidates(_ s: inout Search, _ time: Seconds) -> Bool {
        guard var check = s.check, check.kind == .identify, !check.isMoving else { return false }
        let since = check.orphanedSince ?? time
        guard time - since <= config.dropoutGrace else { return false }
        check.orphanedSince = since
        s.check = check
        return true
    }

    // MARK: Helpers

    private mutating func newRequest() -> UInt64 {
        defer { nextRequest += 1 }
        return (UInt64(truncatingIfNeeded: definition.id) << 32) | (nextRequest & 0xffff_ffff)
    }

    private mutating func take(_ c: Candidate, provenance: Provenance, _ hold: TrackedPhase.Hold, fieldOnAt: Seconds,
                               _ reason: TransitionReason, _ time: Seconds, _ out: inout [Action]) {
        let track = Track(c, provenance: provenance, since: time)
        out.append(.tracesAssigned(track.traces, reason: reason))
        go(.tracked(track, TrackedPhase(hold: hold), fieldOnAt: fieldOnAt), reason, &out)
        out.append(.provenance(provenance))
    }

    private func releaseAll(_ t: Track, _ reason: ReleaseReason, _ out: inout [Action]) {
        for id in t.traces { out.append(.traceReleased(id, reason: reason)) }
    }

    private mutating func go(_ to: State, _ reason: TransitionReason, _ out: inout [Action]) {
        let from = Self.name(state)
        state = to
        out.append(.transition(from: from, to: Self.name(to), reason: reason))
    }

    // MARK: Reading the state

    public static func name(_ s: State) -> TangibleStateName {
        switch s {
        case .notInRange: return .notInRange
        case .inRange: return .inRange
        case .onSurface(let s): return s.placed == nil ? .onSurface : .placed
        case .tracked: return .tracked
        case .resting: return .resting
        }
    }

    public var stateName: TangibleStateName { Self.name(state) }

    /// When the field came on, while it is on (searching, tracked or resting).
    public var fieldOnAt: Seconds? {
        switch state {
        case .onSurface(let s): return s.fieldOnAt
        case .tracked(_, _, let f): return f
        case .resting(let r): return r.fieldOnAt
        case .notInRange, .inRange: return nil
        }
    }

    /// The traces the PERC holds (tracked; placed: its one touch).
    public var heldTraces: [TraceID] {
        if case .tracked(let t, _, _) = state { return t.traces }
        if let p = placement { return [p.touch] }
        return []
    }

    /// Placed on one touch, orientation unresolved (state `placed`).
    public var placement: Placement? {
        if case .onSurface(let s) = state { return s.placed }
        return nil
    }

    /// The touches the locate that placed it searched (empty when not placed).
    var placementSearched: Set<TraceID> {
        if case .onSurface(let s) = state { return s.placedSearched }
        return []
    }

    public var track: Track? {
        if case .tracked(let t, _, _) = state { return t }
        return nil
    }

    /// A tracked PERC's sub-state.
    public var trackedPhase: TrackedPhase? {
        if case .tracked(_, let p, _) = state { return p }
        return nil
    }

    /// Whether the PERC holds a window guess that has not stood yet.
    public var hasPendingGuess: Bool {
        if case .tracked(_, let p, _) = state, case .guessPending = p.hold { return true }
        return false
    }

    /// The field-on time of the current time window, while it matters for matching.
    public var windowOpenedAt: Seconds? {
        switch state {
        case .onSurface(let s) where s.phase != .lightOnly: return s.fieldOnAt
        case .tracked(_, let p, let f): if case .guessPending = p.hold { return f } else { return nil }
        default: return nil
        }
    }

    /// What the PERC needs the engine to look for this frame (nil: nothing), given whether
    /// a light check can run for it (`SearchObservation.canCheck`).
    public enum SearchNeed: Hashable, Sendable {
        /// In its time window (searching, or holding a pending window guess): the triples
        /// whose traces began in the window opened by the field-on at `fieldOnAt`.
        case window(fieldOnAt: Seconds)
        /// Searching after its window (`lightOnly`, `verifying` is in `window`), or holding an
        /// unchecked guess now that a check can run (it withdraws itself): every open
        /// candidate and lone touch.
        case everything
        /// Resting: traces that fit again near the kept pose.
        case nearPose(Pose, InputOrigin, provenanceBefore: Provenance, since: Seconds)
        /// Re-confirming after its link came back: whether its traces lie still.
        case stillness([TraceID])
    }

    /// When time alone can next change this machine (`Engine.wake`): off the surface only its
    /// sensor's events move it; a search, a tracked PERC and an open check change with every
    /// frame; a resting PERC with no check open waits for its next stationary check (none
    /// while no app can show a patch: an app that starts drawing comes with input).
    public func wake(canCheck: Bool) -> Wake {
        switch state {
        case .notInRange, .inRange: return .never
        case .onSurface, .tracked: return .everyFrame
        case .resting(let r):
            if r.checks.check != nil { return .everyFrame }
            return canCheck ? .at(r.checks.nextAt) : .never
        }
    }

    /// (`canCheck` is only evaluated for an unchecked guess.)
    public func searchNeed(canCheck: @autoclosure () -> Bool) -> SearchNeed? {
        if let f = windowOpenedAt { return .window(fieldOnAt: f) }
        switch state {
        case .onSurface: return .everything
        case .resting(let r): return .nearPose(r.pose, r.origin, provenanceBefore: r.provenanceBefore, since: r.since)
        case .tracked(let t, let p, _):
            switch (p.hold, p.link) {
            case (.guessPending, _): return nil   // (`windowOpenedAt`)
            case (.unchecked, _) where canCheck(): return .everything
            case (_, .reconfirming): return .stillness(t.traces)
            case (.standing, .up), (.standing, .lost), (.unchecked, .up), (.unchecked, .lost): return nil
            }
        case .notInRange, .inRange: return nil
        }
    }

    /// The candidates a verifying search keeps in play.
    public var verifyingCandidates: [Candidate] {
        if case .onSurface(let s) = state, s.phase == .verifying { return s.candidates }
        return []
    }

    public var searchPhase: SearchPhase? {
        if case .onSurface(let s) = state { return s.phase }
        return nil
    }

    /// Pose and provenance to report.
    public var pose: (Pose, Provenance)? {
        switch state {
        case .tracked(let t, _, _): return (t.pose, t.provenance)
        case .resting(let r): return (r.pose, .kept)
        case .notInRange, .inRange, .onSurface: return nil
        }
    }

    var pendingCheck: PendingCheck? {
        switch state {
        case .onSurface(let s): return s.check
        case .resting(let r): return r.checks.check
        case .tracked(_, let p, _): if case .reconfirming(let r) = p.link { return r.checks.check } else { return nil }
        case .notInRange, .inRange: return nil
        }
    }

    /// Where the sensor would be on each candidate of `obs` (see `Search.candidatePlaces`), at
    /// most `maxCandidatePlaces`: room for the offered ones, which the need leaves out.
    private static func sensorPlaces(_ obs: SearchObservation, _ offset: Vec2) -> [Vec2] {
        var out: [Vec2] = []
        for list in [obs.windowTriples, obs.windowAlternatives, obs.windowTuples, obs.verifying, obs.triples, obs.tuples] {
            for c in list.prefix(maxCandidatePlaces - out.count) { out.append(c.pose.apply(offset)) }
            if out.count >= maxCandidatePlaces { break }
        }
        return out
    }

    /// Bound of `Search.candidatePlaces`.
    static let maxCandidatePlaces = 2 * VerificationNeed.maxOtherPlaces

    /// The verification need to publish this step, if any.
    public var need: VerificationNeed? {
        guard let check = pendingCheck, let offset = definition.lightSensorOffset else { return nil }
        // A tracked PERC's re-confirmation follows its pose as it is now.
        let current: Pose? = if case .tracked(let t, _, _) = state { t.pose } else { nil }
        let hyps = zip(check.ids, check.candidates).map { id, c in
            let pose = current ?? c.pose
            return Hypothesis(id: id, pose: pose, sensorPosition: pose.apply(offset), traces: c.traces.compactMap { $0 })
        }
        var others: [Vec2] = []
        if check.kind == .identify, case .onSurface(let s) = state {
            others = Array(s.candidatePlaces.lazy.filter { p in !hyps.contains { $0.sensorPosition.distance(to: p) < 1 } }
                .prefix(VerificationNeed.maxOtherPlaces))
        }
        return VerificationNeed(tangible: definition.id, request: check.request, kind: check.kind, hypotheses: hyps,
                                footprint: definition.footprint, velocity: check.velocity, isMoving: check.isMoving,
                                otherPlaces: others)
    }
}
