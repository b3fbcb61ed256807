// The thesis 3.3 cases, one scenario each, played by the simulator through the Engine.

import Testing
@testable import MTKTangibles
@testable import MTKSimulator

@Suite("PERC scenarios (thesis 3.3)")
struct PercScenarioTests {
    /// The traces the tangible holds are all its own marker touches.
    func holdsOnlyOwn(_ run: EngineRun, _ id: TangibleID) -> Bool {
        guard let t = run.last.tangible(id) else { return false }
        return !t.traces.isEmpty && t.traces.allSatisfy { run.maker($0) == id }
    }

    func poseWithin(_ run: EngineRun, _ id: TangibleID, mm: Double = 2.5, rad: Double = 0.1) -> Bool {
        guard let (d, a) = run.poseError(id) else { return false }
        return d <= mm && a <= rad
    }

    /// The thesis's case as it was played until 2026-12-02: pairs asked about only 0.12 s
    /// after the field-on, by when this placement's third marker has touched.
    @Test("single placement: window guess, right traces, pose, lift back to inRange")
    func singlePlacement() {
        var config = EngineConfig()
        config.earlyPairCheckAfter = 0.12
        var run = EngineRun("single-placement", config: config)
        run.run(until: 1.0)
        #expect(run.last.tangible(1)?.state == .tracked)
        #expect(run.last.tangible(1)?.traces.count == 3)
        #expect(holdsOnlyOwn(run, 1))
        #expect(poseWithin(run, 1))
        #expect(run.last.tangible(1)?.provenance == .guessed)
        run.runToEnd()
        // Lifting ends the touches a moment before the field-off notification arrives.
        #expect(run.states(of: 1) == [.notInRange, .inRange, .onSurface, .tracked, .resting, .inRange])
        #expect(run.transitions(of: 1).map(\.reason) == [.linkConnected, .fieldOn, .windowGuess, .tracesLost, .fieldOff])
        // The field-off came within the resting grace: no stationary check was asked for.
        #expect(run.outputs.flatMap(\.needs).isEmpty)
        #expect(run.last.freeTraces.allSatisfy { $0.phase == .end } )
    }

    /// Today a pair of window traces is asked about at once (`earlyPairCheckAfter`): here
    /// light confirms the first two marker touches before the third comes, the third joins
    /// the track, and the PERC ends as the thesis's case does.
    @Test("single placement: its first pair is asked about at once, light confirms it, the third touch joins")
    func singlePlacementPairFirst() throws {
        var run = EngineRun("single-placement")
        run.run(until: 1.0)
        #expect(run.last.tangible(1)?.state == .tracked)
        #expect(run.last.tangible(1)?.traces.count == 3)
        #expect(holdsOnlyOwn(run, 1))
        #expect(poseWithin(run, 1))
        #expect(run.last.tangible(1)?.provenance == .confirmed)
        let needs = run.outputs.flatMap(\.needs)
        #expect(!needs.isEmpty && needs.allSatisfy { n in n.kind == .identify && n.hypotheses.allSatisfy { $0.traces.count == 2 } })
        let fieldOn = try #require(run.runner.world.truth.placement(of: 1)?.fieldOnArrival)
        let asked = try #require(run.outputs.first { !$0.needs.isEmpty }?.time)
        #expect(asked - fieldOn < EngineConfig().earlyLocateAfter, "asked \(asked - fieldOn) s after the field-on")
        run.runToEnd()
        #expect(run.transitions(of: 1).map(\.reason) == [.linkConnected, .fieldOn, .lightConfirmed, .tracesLost, .fieldOff])
    }

    @Test("two PERCs placed together: both found, each with its own traces")
    func twoTogether() {
        var run = EngineRun("two-percs-together")
        run.run(until: 2.0)
        for id in [1, 2] {
            #expect(run.last.tangible(id)?.state == .tracked)
            #expect(holdsOnlyOwn(run, id))
            #expect(poseWithin(run, id))
        }
    }

    @Test("fingers forming a fitting triple nearby: the PERC gets its own traces, the fingers stay free")
    func fingersTriple() {
        var run = EngineRun("fingers-triple-nearby")
        run.run(until: 2.0)
        #expect(run.last.tangible(1)?.state == .tracked)
        #expect(holdsOnlyOwn(run, 1))
        #expect(poseWithin(run, 1))
        #expect(run.last.freeTraces.count == 3)
        #expect(run.last.freeTraces.allSatisfy { run.maker($0.id) == nil })
    }

    @Test("one trace at placement: placed (its touch held, no pose) until the other markers touch")
    func oneTrace() {
        var run = EngineRun("one-trace-at-placement")
        run.run(until: 2.4)
        // Its one touch is marker 0 or 1 of the standard PERC (sensor 18.0 mm from both): light
        // finds the sensor but not the turn. Placed, on its own touch, no pose.
        #expect(run.last.tangible(1)?.state == .placed)
        #expect(run.last.tangible(1)?.pose == nil)
        #expect(run.last.tangible(1)?.traces.count == 1)
        #expect(holdsOnlyOwn(run, 1))
        run.run(until: 4.0)
        #expect(run.last.tangible(1)?.state == .tracked)
        #expect(holdsOnlyOwn(run, 1))
        #expect(poseWithin(run, 1))
    }

    @Test("two traces at placement: a light-confirmed tuple, then the third trace is recovered")
    func twoTraces() {
        var run = EngineRun("two-traces-at-placement")
        run.run(until: 2.0)
        #expect(run.last.tangible(1)?.state == .tracked)
        #expect(run.last.tangible(1)?.traces.count == 2)
        #expect(run.last.tangible(1)?.provenance == .confirmed)
        #expect(holdsOnlyOwn(run, 1))
        #expect(poseWithin(run, 1))
        run.run(until: 4.2)
        #expect(run.last.tangible(1)?.traces.count == 3)
        #expect(holdsOnlyOwn(run, 1))
    }

    @Test("hypotenuse tuple: two hypotheses, the light check picks the right one")
    func hypotenuse() {
        var run = EngineRun("hypotenuse-tuple")
        run.run(until: 2.0)
        let needs = run.outputs.flatMap(\.needs).filter { $0.kind == .identify }
        #expect(needs.first?.hypotheses.count == 2)
        #expect(run.last.tangible(1)?.state == .tracked)
        #expect(holdsOnlyOwn(run, 1))
        #expect(poseWithin(run, 1))
    }

    @Test("leg tuple: four hypotheses, the light check picks the right one")
    func leg() {
        var run = EngineRun("leg-tuple")
        run.run(until: 2.0)
        let needs = run.outputs.flatMap(\.needs).filter { $0.kind == .identify }
        #expect(needs.first?.hypotheses.count == 4)
        #expect(run.last.tangible(1)?.state == .tracked)
        #expect(holdsOnlyOwn(run, 1))
        #expect(poseWithin(run, 1))
    }

    @Test("flicker while moving: lost traces are replaced near the pose, the PERC stays tracked")
    func flicker() {
        var run = EngineRun("flicker-recovery")
        run.run(until: 5.0)
        #expect(run.states(of: 1) == [.notInRange, .inRange, .onSurface, .tracked])
        let adopted = run.events(of: 1).filter { if case .traceAdopted = $0 { return true } else { return false } }
        #expect(adopted.count >= 2)
        #expect(run.last.tangible(1)?.traces.count == 3)
        #expect(holdsOnlyOwn(run, 1))
        #expect(poseWithin(run, 1))
    }

    @Test("ghost touch while moving: the frozen trace is dropped, the pose follows the PERC")
    func ghost() {
        var run = EngineRun("ghost-touch-moving")
        run.run(until: 4.5)
        let ghostDrops = run.events(of: 1).filter { if case .traceReleased(_, .ghostTouch) = $0 { return true } else { return false } }
        #expect(ghostDrops.count == 1)
        #expect(run.last.tangible(1)?.state == .tracked)
        #expect(run.last.tangible(1)?.traces.allSatisfy { !run.isGhost($0) } == true)
        #expect(holdsOnlyOwn(run, 1))
        #expect(poseWithin(run, 1))
    }

    @Test("filtered traces: resting with kept pose, stationary checks pass, lift ends it")
    func filteredResting() {
        var run = EngineRun("filtered-resting-lift")
        run.run(until: 11.0)
        #expect(run.last.tangible(1)?.state == .resting)
        #expect(run.last.tangible(1)?.provenance == .kept)
        #expect(poseWithin(run, 1))
        let stationary = run.outputs.flatMap(\.needs).filter { $0.kind == .stationary }
        #expect(!stationary.isEmpty)
        let passed = run.events(of: 1).filter { if case .checkAnswered(_, .confirmed) = $0 { return true } else { return false } }
        #expect(passed.count >= 2)
        run.runToEnd()
        #expect(run.states(of: 1) == [.notInRange, .inRange, .onSurface, .tracked, .resting, .inRange])
    }

    @Test("resting: three failed stationary checks send the PERC back to onSurface")
    func restingFailures() {
        var run = EngineRun("filtered-resting-lift")
        run.run(until: 6.0)
        run.answers = false
        #expect(run.last.tangible(1)?.state == .resting)
        // Feed three rejections by hand.
        var rejected = 0
        while rejected < 3 && run.now < 11 {
            run.run(until: run.now + 1 / 120)
            if let n = run.last.needs.first(where: { $0.kind == .stationary }) {
                let o = VerificationOutcome(tangible: 1, request: n.request, result: .rejected, time: run.now)
                var r = run
                r.outputs.append(r.engine.step(Frame(number: 100_000 + UInt64(rejected), time: run.now), outcomes: [o]))
                run = r
                rejected += 1
            }
        }
        #expect(rejected == 3)
        #expect(run.last.tangible(1)?.state == .onSurface)
        #expect(run.transitions(of: 1).last?.reason == .stationaryChecksFailed)
    }

    @Test("lift during recognition: the finger guess is withdrawn, never confirmed; lift ends in inRange")
    func liftDuring() {
        var run = EngineRun("lift-during-recognition")
        run.runToEnd()
        let confirmedFingers = run.outputs.contains { o in
            guard let t = o.tangible(1), t.provenance == .confirmed else { return false }
            return t.traces.contains { run.maker($0) != 1 }
        }
        #expect(!confirmedFingers)
        #expect(run.transitions(of: 1).contains { $0.reason == .guessWithdrawn })
        #expect(run.last.tangible(1)?.state == .inRange)
        #expect(run.transitions(of: 1).last?.reason == .fieldOff)
    }

    @Test("link loss: the PERC still lying there is followed by its traces (kept) and has its provenance back with the link")
    func linkLoss() {
        var run = EngineRun("link-loss")
        run.run(until: 3.9)
        let before = run.last.tangible(1)?.provenance
        #expect(run.last.tangible(1)?.state == .tracked)
        #expect(before != .kept)
        // The host noticed at 4 s; the markers still touch.
        run.run(until: 5.0)
        #expect(run.last.tangible(1)?.state == .tracked)
        #expect(run.last.tangible(1)?.provenance == .kept)
        #expect(holdsOnlyOwn(run, 1))
        #expect(poseWithin(run, 1))
        run.run(until: 7.5)
        #expect(run.last.tangible(1)?.state == .tracked)
        #expect(run.last.tangible(1)?.provenance == before)
        #expect(holdsOnlyOwn(run, 1))
        // Never dropped: no transition since the first recognition.
        #expect(run.transitions(of: 1).map(\.to) == [.inRange, .onSurface, .tracked])
        run.run(until: 8.8)
        #expect(run.last.tangible(1)?.state == .inRange, "lifted at 8 s")
    }

    @Test("link loss, then lifted while the link is down: notInRange when its traces end")
    func linkLossThenLifted() {
        var scenario = BuiltInScenarios.linkLoss
        scenario.steps = [BuiltInScenarios.step(0.5, BuiltInScenarios.place(1, [300, 200], 30)),
                          BuiltInScenarios.step(2.0, .linkLoss(.init(tangible: 1))), BuiltInScenarios.step(4.5, BuiltInScenarios.lift(1))]
        var run = EngineRun(scenario)
        run.run(until: 4.4)
        #expect(run.last.tangible(1)?.state == .tracked)
        #expect(run.last.tangible(1)?.provenance == .kept)
        run.run(until: 5.0)
        #expect(run.last.tangible(1)?.state == .notInRange)
        #expect(run.last.tangible(1)?.traces.isEmpty == true)
        #expect(run.transitions(of: 1).last?.reason == .linkLost)
    }

    @Test("non-standard shapes: scalene, obtuse, near-equilateral PERCs are each tracked")
    func shapes() {
        var run = EngineRun("shapes")
        for (id, t) in [(1, 3.0), (2, 7.0), (3, 11.0)] {
            run.run(until: t)
            #expect(run.last.tangible(id)?.state == .tracked)
            #expect(holdsOnlyOwn(run, id))
            #expect(poseWithin(run, id, rad: id == 3 ? 2.2 : 0.1))
        }
    }
}
