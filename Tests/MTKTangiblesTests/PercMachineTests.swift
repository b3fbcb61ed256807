// The PERC state machine driven directly: events in, typed transitions with reasons out.

import Foundation
import Testing
@testable import MTKTangibles

@Suite("PercMachine")
struct PercMachineTests {
    let def = TangibleDefinition.standardPerc(id: 1, name: "A")
    let origin = InputOrigin(kind: .simulator, device: "m")

    func candidate(_ ids: [TraceID?], at p: Vec2 = Vec2(100, 100), began: Seconds = 1.0) -> Candidate {
        Candidate(traces: ids, pose: Pose(position: p, angle: 0), residual: 0.5, origin: origin, latestBegin: began,
                  earliestBegin: began, isMoving: false, velocity: .zero, fittedHistory: 0)
    }

    func reasons(_ acts: [TangibleEvent]) -> [TransitionReason] {
        acts.compactMap { if case .transition(_, _, let r) = $0 { return r } else { return nil } }
    }

    func onSurface(at t: Seconds = 1.0) -> PercMachine {
        var m = PercMachine(definition: def, config: EngineConfig())
        _ = m.handle(.link(connected: true), at: 0)
        _ = m.handle(.field(on: true), at: t)
        return m
    }

    /// A PERC searching since 1.0 s that took the sole window triple [1, 2, 3] as its guess at 1.05 s.
    func windowGuessed() -> (PercMachine, SearchObservation) {
        var m = onSurface()
        var obs = SearchObservation()
        obs.windowTriples = [candidate([1, 2, 3])]
        _ = m.handle(.search(obs), at: 1.05)
        return (m, obs)
    }

    /// The engine sends searches only to PERCs on the surface and upkeep only to tracked ones:
    /// anything else is its bug, reported as `impossibleEvent` and otherwise ignored. A late
    /// light answer is no bug: it is dropped quietly.
    @Test("an event a state cannot get is reported as impossible and changes nothing")
    func impossiblePairsAreReported() {
        var m = PercMachine(definition: def, config: EngineConfig())
        #expect(m.handle(.search(SearchObservation()), at: 0) == [.impossibleEvent(state: .notInRange, event: "search")])
        _ = m.handle(.link(connected: true), at: 0)
        let outcome = VerificationOutcome(tangible: 1, request: 7, result: .rejected, time: 0.1)
        #expect(m.handle(.outcome(outcome, current: nil), at: 0.1).isEmpty)
        #expect(m.handle(.search(SearchObservation()), at: 0.2) == [.impossibleEvent(state: .inRange, event: "search")])
        #expect(m.stateName == .inRange)
        // A tracked PERC's upkeep reaching one that searches.
        var s = onSurface()
        let (guessed, _) = windowGuessed()
        guard let track = guessed.track else { Issue.record("no guess"); return }
        #expect(s.handle(.track(TrackUpdate(track: track)), at: 1.1) == [.impossibleEvent(state: .onSurface, event: "track")])
        #expect(s.stateName == .onSurface)
    }

    @Test("link and field events walk notInRange → inRange → onSurface → inRange → notInRange")
    func sensorTransitions() {
        var m = PercMachine(definition: def, config: EngineConfig())
        #expect(reasons(m.handle(.link(connected: true), at: 0)) == [.linkConnected])
        #expect(reasons(m.handle(.link(connected: true), at: 0.1)) == [])
        #expect(reasons(m.handle(.field(on: true), at: 1)) == [.fieldOn])
        #expect(m.stateName == .onSurface && m.searchPhase == .window)
        #expect(reasons(m.handle(.field(on: false), at: 2)) == [.fieldOff])
        #expect(reasons(m.handle(.link(connected: false), at: 3)) == [.linkLost])
        #expect(m.stateName == .notInRange)
    }

    /// A tracked PERC whose link dropped and came back, guessed at first (`windowGuessed`).
    func linkDroppedAndBack() -> PercMachine {
        var (m, obs) = windowGuessed()
        _ = m.handle(.search(obs), at: 1.21)
        _ = m.handle(.link(connected: false), at: 2)
        _ = m.handle(.field(on: true), at: 3)
        _ = m.handle(.link(connected: true), at: 3)
        return m
    }

    func still(_ canCheck: Bool = true, _ isStill: Bool = true) -> SearchObservation {
        var obs = SearchObservation()
        obs.canCheck = canCheck
        obs.trackIsStill = isStill
        return obs
    }

    @Test("a tracked PERC whose link drops keeps its traces (kept) and gets its provenance back once light re-confirms its pose")
    func linkDropKeepsATrackedPerc() throws {
        var (m, obs) = windowGuessed()
        _ = m.handle(.search(obs), at: 1.21)
        #expect(m.pose?.1 == .guessed)
        let lost = m.handle(.link(connected: false), at: 2)
        #expect(reasons(lost) == [] && lost.contains(.provenance(.kept)))
        #expect(m.stateName == .tracked && m.heldTraces == [1, 2, 3] && m.pose?.1 == .kept)
        #expect(m.handle(.link(connected: false), at: 2.1) == [], "a second notice changes nothing")
        #expect(m.need == nil, "no check while the link is down")
        _ = m.handle(.field(on: true), at: 3)
        #expect(m.handle(.link(connected: true), at: 3) == [], "kept until light re-confirms it")
        #expect(m.stateName == .tracked && m.pose?.1 == .kept)
        // Moving: no check yet (a patch would trail the sensor).
        #expect(m.handle(.search(still(true, false)), at: 3.01) == [])
        #expect(m.need == nil)
        let asked = m.handle(.search(still()), at: 3.02)
        #expect(asked.contains { if case .checkRequested(_, .stationary, 1) = $0 { true } else { false } }, "\(asked)")
        let need = try #require(m.need)
        #expect(need.kind == .stationary && need.hypotheses.count == 1 && need.hypotheses[0].traces == [1, 2, 3])
        let yes = VerificationOutcome(tangible: 1, request: need.request, result: .confirmed(hypothesis: need.hypotheses[0].id), time: 3.2)
        let done = m.handle(.outcome(yes, current: nil), at: 3.2)
        #expect(done.contains(.provenance(.guessed)) && reasons(done) == [])
        #expect(m.stateName == .tracked && m.pose?.1 == .guessed && m.need == nil)
        // A field-off read after the link returns still ends it.
        #expect(reasons(m.handle(.field(on: false), at: 3.3)) == [.fieldOff])
    }

    @Test("after the link's return, a pose light keeps rejecting (another PERC lies there) is let go and searched afresh")
    func aRejectedReconfirmationLetsGo() throws {
        var m = linkDroppedAndBack()
        var t = 3.02
        for round in 1...3 {
            _ = m.handle(.search(still()), at: t)
            let need = try #require(m.need, "round \(round)")
            let no = VerificationOutcome(tangible: 1, request: need.request, result: .rejected, time: t + 0.15)
            let acts = m.handle(.outcome(no, current: nil), at: t + 0.15)
            if round < 3 {
                #expect(m.stateName == .tracked && m.pose?.1 == .kept && reasons(acts) == [], "round \(round)")
            } else {
                #expect(reasons(acts) == [.stationaryChecksFailed])
                #expect(acts.contains(.traceReleased(1, reason: .checksFailed)))
                #expect(m.stateName == .onSurface && m.searchPhase == .lightOnly && m.heldTraces.isEmpty)
            }
            t += 0.15 + EngineConfig().stationaryRetryDelay
        }
    }

    @Test("after the link's return with no display, or a link lost again before the check, nothing is concluded from light")
    func noDisplayOrLinkLostAgainDuringReconfirmation() throws {
        var m = linkDroppedAndBack()
        #expect(m.handle(.search(still(false)), at: 3.02) == [.provenance(.guessed)], "no display: back at once, unchecked")
        #expect(m.need == nil)

        var n = linkDroppedAndBack()
        _ = n.handle(.search(still()), at: 3.02)
        let need = try #require(n.need)
        #expect(n.handle(.link(connected: false), at: 3.05) == [], "still kept")
        #expect(n.need == nil && n.pose?.1 == .kept)
        let late = VerificationOutcome(tangible: 1, request: need.request, result: .confirmed(hypothesis: need.hypotheses[0].id), time: 3.1)
        #expect(n.handle(.outcome(late, current: nil), at: 3.1) == [], "a late answer to the dropped check is ignored")
        _ = n.handle(.link(connected: true), at: 3.5)
        #expect(n.handle(.search(still(false)), at: 3.52) == [.provenance(.guessed)])
    }

    /// The tracked sub-states are two independent parts (`TrackedPhase`): a window guess's link
    /// can drop and come back inside its window, and the guess then stands unchecked (no
    /// display, an unexplained window trace) with its re-confirmation still open.
    @Test("a guess whose link flapped in its window stands unchecked while re-confirming; the next search ends both in turn")
    func linkFlapInsideTheWindow() {
        var (m, obs) = windowGuessed()
        #expect(m.trackedPhase == .init(hold: .guessPending(until: 1.2)))
        #expect(m.searchNeed(canCheck: true) == .window(fieldOnAt: 1.0))
        #expect(m.handle(.link(connected: false), at: 1.08) == [.provenance(.kept)])
        #expect(m.trackedPhase == .init(hold: .guessPending(until: 1.2), link: .lost(provenanceBefore: .guessed)))
        #expect(m.handle(.link(connected: true), at: 1.12) == [])
        guard case .reconfirming(let r)? = m.trackedPhase?.link, case .guessPending? = m.trackedPhase?.hold else {
            Issue.record("not a pending guess re-confirming: \(String(describing: m.trackedPhase))"); return
        }
        #expect(r.provenance == .guessed && m.need == nil, "no check while the window is open")
        var end = obs
        end.canCheck = false
        end.windowTraces = [1, 2, 3, 9]   // a window trace outside the guess: not clean
        #expect(m.handle(.search(end), at: 1.21) == [.guessStood])
        #expect(m.trackedPhase?.hold == .unchecked && m.pose?.1 == .kept)
        #expect(m.searchNeed(canCheck: false) == .stillness([1, 2, 3]))
        #expect(m.searchNeed(canCheck: true) == .everything, "an unchecked guess is offered a search once checks can run")
        #expect(m.handle(.search(still(false)), at: 1.22) == [.provenance(.guessed)], "no display: back at once")
        #expect(m.trackedPhase == .init(hold: .unchecked) && m.searchNeed(canCheck: false) == nil)
        let acts = m.handle(.search(still(true)), at: 1.3)
        #expect(reasons(acts) == [.guessWithdrawn] && m.searchPhase == .lightOnly, "an app draws: withdrawn and checked")
        #expect(m.searchNeed(canCheck: true) == .everything)
    }

    @Test("a sole window triple is guessed at once and stands at the window's end")
    func windowGuessStands() {
        var m = onSurface()
        var obs = SearchObservation()
        obs.windowTriples = [candidate([1, 2, 3])]
        #expect(reasons(m.handle(.search(obs), at: 1.05)) == [.windowGuess])
        #expect(m.stateName == .tracked && m.hasPendingGuess)
        #expect(m.pose?.1 == .guessed)
        _ = m.handle(.search(obs), at: 1.1)
        #expect(m.hasPendingGuess)
        #expect(m.handle(.search(obs), at: 1.21).contains(.guessStood))
        #expect(!m.hasPendingGuess)
    }

    @Test("a rival at the window's end withdraws the guess; a light check decides")
    func guessWithdrawnThenConfirmed() {
        var (m, obs) = windowGuessed()
        obs.windowTriples.append(candidate([4, 5, 6], at: Vec2(200, 100)))
        let acts = m.handle(.search(obs), at: 1.21)
        #expect(reasons(acts) == [.guessWithdrawn])
        #expect(acts.contains(.traceReleased(1, reason: .guessWithdrawn)))
        #expect(m.verifyingCandidates.count == 2)
        obs.verifying = m.verifyingCandidates  // the engine refits them every frame
        _ = m.handle(.search(obs), at: 1.22)
        let need = m.need!
        #expect(need.kind == .identify && need.hypotheses.count == 2)
        #expect(need.hypotheses[1].sensorPosition == Vec2(205, 100))
        let o = VerificationOutcome(tangible: 1, request: need.request, result: .confirmed(hypothesis: 1), time: 1.3)
        #expect(reasons(m.handle(.outcome(o, current: candidate([4, 5, 6], at: Vec2(200, 100))), at: 1.3)) == [.lightConfirmed])
        #expect(m.heldTraces == [4, 5, 6])
        #expect(m.pose?.1 == .confirmed)
        #expect(m.need == nil)
    }

    @Test("a rival triple inside the window withdraws the guess at once; light is asked then and decides before the window's end")
    func aRivalInTheWindowIsCheckedAtOnce() throws {
        var (m, obs) = windowGuessed()
        obs.windowTriples.append(candidate([4, 5, 6], at: Vec2(200, 100)))
        let acts = m.handle(.search(obs), at: 1.1)
        #expect(reasons(acts) == [.guessWithdrawn] && acts.contains(.traceReleased(1, reason: .guessWithdrawn)), "\(acts)")
        #expect(acts.contains { if case .checkRequested(_, .identify, 2) = $0 { true } else { false } }, "\(acts)")
        #expect(m.stateName == .onSurface && m.searchPhase == .window && m.heldTraces.isEmpty)
        let need = try #require(m.need)
        #expect(Set(need.hypotheses.map(\.traces)) == [[1, 2, 3], [4, 5, 6]])
        // A third triple that forms later in the window joins the same check.
        obs.windowTriples.append(candidate([7, 8, 9], at: Vec2(300, 100)))
        _ = m.handle(.search(obs), at: 1.12)
        #expect(m.need?.request == need.request && m.need?.hypotheses.count == 3)
        // No guess while more than one triple fits.
        _ = m.handle(.search(obs), at: 1.15)
        #expect(m.stateName == .onSurface)
        let id = try #require(m.need?.hypotheses.first { $0.traces == [4, 5, 6] }?.id)
        let o = VerificationOutcome(tangible: 1, request: need.request, result: .confirmed(hypothesis: id), time: 1.17)
        #expect(reasons(m.handle(.outcome(o, current: candidate([4, 5, 6], at: Vec2(200, 100))), at: 1.17)) == [.lightConfirmed])
        #expect(m.heldTraces == [4, 5, 6] && m.pose?.1 == .confirmed)
    }

    @Test("a rival inside the window waits for the window's end when it still moves, is another PERC's too, no app draws, or the setting is off")
    func aRivalWaitsForTheWindowsEnd() throws {
        func afterRival(_ config: EngineConfig = EngineConfig(), _ change: (inout SearchObservation) -> Void) -> PercMachine {
            var m = PercMachine(definition: def, config: config)
            _ = m.handle(.link(connected: true), at: 0)
            _ = m.handle(.field(on: true), at: 1.0)
            var obs = SearchObservation()
            obs.windowTriples = [candidate([1, 2, 3])]
            _ = m.handle(.search(obs), at: 1.05)
            obs.windowTriples.append(candidate([4, 5, 6], at: Vec2(200, 100)))
            change(&obs)
            _ = m.handle(.search(obs), at: 1.1)
            return m
        }
        let moving = afterRival { $0.windowTriples[1].isMoving = true }
        let contested = afterRival { $0.contested = [[4, 5, 6]] }
        let noDisplay = afterRival { $0.canCheck = false }
        var old = EngineConfig()
        old.checkRivalsInWindow = false
        let off = afterRival(old) { _ in }
        for (name, m) in [("moving", moving), ("contested", contested), ("no display", noDisplay), ("off", off)] {
            #expect(m.stateName == .tracked && m.hasPendingGuess && m.need == nil, "\(name)")
        }
        // And the same machine still ends the window as before: withdrawn, then verified.
        var m = off
        var obs = SearchObservation()
        obs.windowTriples = [candidate([1, 2, 3]), candidate([4, 5, 6], at: Vec2(200, 100))]
        #expect(reasons(m.handle(.search(obs), at: 1.21)) == [.guessWithdrawn])
        #expect(m.searchPhase == .verifying)
    }

    @Test("a recording made before checkRivalsInWindow existed reads it as off")
    func oldConfigsReadTheRivalCheckAsOff() throws {
        let old = try JSONDecoder().decode(EngineConfig.self, from: Data("{}".utf8))
        #expect(!old.checkRivalsInWindow)
        #expect(EngineConfig().checkRivalsInWindow)
        let roundTrip = try JSONDecoder().decode(EngineConfig.self, from: JSONEncoder().encode(EngineConfig()))
        #expect(roundTrip.checkRivalsInWindow)
    }

    /// More candidates than `maxHypotheses`: those whose touches all began in the field-on's
    /// time window go first (`windowTouchesFirst`); pairs with a touch from long before the
    /// field-on (a finger lying there) fill what is left. Off, the first ones offered are kept.
    @Test("a check over maxHypotheses keeps the pairs whose touches began in the window")
    func windowTouchesGoFirstWhenCandidatesAreCut() throws {
        func need(_ config: EngineConfig) throws -> [Int] {
            var m = PercMachine(definition: def, config: config)
            _ = m.handle(.link(connected: true), at: 0)
            _ = m.handle(.field(on: true), at: 1.0)
            var obs = SearchObservation()
            _ = m.handle(.search(obs), at: 1.25)
            // Two pairs of a finger down at 0.1 s and a fresh touch, ranked first (their last
            // touches began when the fresh pairs' did, and their trace ids are lower: `bench
            // accuracy --seed 2 --show 1003`), then eight fresh pairs.
            let old = (0..<2).map { k in
                Candidate(traces: [TraceID(3 + k), 1, nil], pose: Pose(position: Vec2(100 + 20 * Double(k), 100), angle: 0), residual: 0.2,
                          origin: origin, latestBegin: 1.05, earliestBegin: 0.1, isMoving: false, velocity: .zero, fittedHistory: 0)
            }
            let fresh = (0..<8).map { candidate([TraceID(10 + $0), 2, nil], at: Vec2(100 + 20 * Double($0), 200), began: 1.05) }
            obs.tuples = old + fresh
            _ = m.handle(.search(obs), at: 1.3)
            let n = try #require(m.need)
            return n.hypotheses.map { Int($0.traces[0]) }.sorted()
        }
        var config = EngineConfig()
        config.maxHypotheses = 8
        #expect(try need(config) == Array(10..<18), "the eight fresh pairs")
        config.windowTouchesFirst = false
        let off = try need(config)
        #expect(off == [3, 4] + Array(10..<16), "off: ranked by when the last touch began, then by trace id: \(off)")
        let decoded = try JSONDecoder().decode(EngineConfig.self, from: Data("{}".utf8))
        #expect(!decoded.windowTouchesFirst && EngineConfig().windowTouchesFirst)
    }

    @Test("after the window only a light-confirmed tuple is taken, never a guess")
    func lightOnlyNeedsConfirmation() {
        var m = onSurface()
        var obs = SearchObservation()
        _ = m.handle(.search(obs), at: 1.25)
        #expect(m.searchPhase == .lightOnly)
        obs.tuples = [candidate([7, 8, nil]), candidate([8, 7, nil], at: Vec2(90, 90))]
        _ = m.handle(.search(obs), at: 1.3)
        #expect(m.stateName == .onSurface)
        let need = m.need!
        #expect(need.hypotheses.count == 2)
        let rejected = VerificationOutcome(tangible: 1, request: need.request, result: .rejected, time: 1.4)
        _ = m.handle(.outcome(rejected, current: nil), at: 1.4)
        _ = m.handle(.search(obs), at: 1.41)
        #expect(m.need == nil)  // rejected sets wait before they are offered again
        _ = m.handle(.search(obs), at: 3.5)
        #expect(m.need != nil && m.need!.request != need.request)
    }

    @Test("resting: stationary checks; three failures send it back to onSurface")
    func restingFailures() {
        var (m, _) = windowGuessed()
        let lost = TrackUpdate(track: Track(slots: [nil, nil, nil], pose: Pose(position: Vec2(100, 100), angle: 0),
                                            origin: origin, provenance: .guessed, since: 1))
        #expect(reasons(m.handle(.track(lost), at: 5)) == [.tracesLost])
        #expect(m.pose?.1 == .kept)
        var t = 5.0
        var failures = 0
        while m.stateName == .resting && t < 10 {
            t += 0.1
            _ = m.handle(.search(SearchObservation()), at: t)
            if let n = m.need {
                #expect(n.kind == .stationary && n.hypotheses.count == 1)
                let acts = m.handle(.outcome(VerificationOutcome(tangible: 1, request: n.request, result: .rejected, time: t), current: nil), at: t)
                failures += 1
                if failures == 3 { #expect(reasons(acts) == [.stationaryChecksFailed]) }
            }
        }
        #expect(failures == 3)
        #expect(m.stateName == .onSurface && m.searchPhase == .lightOnly)
    }

    @Test("resting: traces near the kept pose bring it back with its earlier provenance")
    func restingRecovery() {
        var m = PercMachine(definition: def, config: EngineConfig(), state: .resting(PercMachine.Rest(
            pose: Pose(position: Vec2(100, 100), angle: 0), since: 0, origin: origin, provenanceBefore: .confirmed, fieldOnAt: 0, nextCheckAt: 99)))
        var obs = SearchObservation()
        obs.nearPose = TrackUpdate(track: Track(slots: [1, 2, nil], pose: Pose(position: Vec2(100, 100), angle: 0),
                                                origin: origin, provenance: .kept, since: 0))
        #expect(reasons(m.handle(.search(obs), at: 5)) == [.recoveredNearPose])
        #expect(m.pose?.1 == .confirmed)
        #expect(m.heldTraces == [1, 2])
    }

    @Test("an outcome for a request that is not pending changes nothing")
    func staleOutcome() {
        var m = onSurface()
        let acts = m.handle(.outcome(VerificationOutcome(tangible: 1, request: 42, result: .confirmed(hypothesis: 0), time: 1), current: candidate([1, 2, 3])), at: 1.1)
        #expect(acts.isEmpty)
        #expect(m.stateName == .onSurface)
    }
}
