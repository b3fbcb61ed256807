// No confirmation without a shown patch: with no drawing app, no check runs and nothing is `confirmed`.
import Testing
import MTKTangibles
import MTKSimulator
import FrameCore
import LightCheck
import Foundation

/// Random placements of `bench accuracy`'s generator (full hardware model: spontaneous light
/// flips, late answers, finger triples, a second PERC) played through the Engine and the
/// real scheduler with `Frame.drawing` false and nothing presented to the simulated sensor:
/// the light sensor's flips must never become a confirmation.
@Suite struct NoDisplayTests {
    struct Run {
        var confirmedProvenance = 0
        var confirmedOutcomes = 0
        var checksRequested = 0
        var overlaysWithPatches = 0
        var guessedUnchecked = 0
        var trackedFrames = 0
    }

    func play(_ c: PlacementGenerator.Case, drawing: (Seconds) -> Bool) throws -> Run {
        var runner = try ScenarioRunner(c.scenario)
        var core = FrameCore(definitions: runner.world.definitions, engineConfig: EngineConfig())
        var run = Run()
        while !runner.isFinished {
            var frame = runner.nextFrame()
            frame.drawing = drawing(frame.time)
            let (out, plan) = core.advance(frame)
            if !frame.drawing {
                // Nobody draws: the simulated sensor sees nothing of ours.
                run.confirmedOutcomes += plan.outcomes.filter { if case .confirmed = $0.result { true } else { false } }.count
                run.overlaysWithPatches += plan.overlayChanged && plan.overlay.patches.contains { $0.purpose != .calibration } ? 1 : 0
                run.checksRequested += out.events.filter { if case .checkRequested = $0.event { true } else { false } }.count
            } else if plan.overlayChanged {
                runner.present(plan.overlay, at: frame.time)
            }
            for t in out.tangibles where t.provenance == .confirmed && !frame.drawing { _ = t; run.confirmedProvenance += 1 }
            for e in out.events {
                if case .transition(_, .tracked, .guessedUnchecked) = e.event { run.guessedUnchecked += 1 }
            }
            if out.tangible(c.tangible)?.state == .tracked { run.trackedFrames += 1 }
        }
        return run
    }

    @Test("random placements with no display: no check, no overlay, never confirmed")
    func neverConfirmedWithoutADisplay() throws {
        var total = Run()
        var recognised = 0
        let cases = PlacementGenerator.cases(300, seed: 77)
        for c in cases {
            let r = try play(c) { _ in false }
            total.confirmedProvenance += r.confirmedProvenance
            total.confirmedOutcomes += r.confirmedOutcomes
            total.checksRequested += r.checksRequested
            total.overlaysWithPatches += r.overlaysWithPatches
            total.guessedUnchecked += r.guessedUnchecked
            recognised += r.trackedFrames > 0 ? 1 : 0
        }
        #expect(total.confirmedProvenance == 0)
        #expect(total.confirmedOutcomes == 0)
        #expect(total.checksRequested == 0)
        #expect(total.overlaysWithPatches == 0)
        // The engine did not fall silent: placements a check would have decided were guessed.
        #expect(total.guessedUnchecked > 0)
        // About one placement in ten makes fewer than three touches (HARDWARE-MODEL.md: one
        // touch in 3.2%, two at the scanline angles): those only a light check can place.
        #expect(recognised >= cases.count * 8 / 10, "\(recognised) of \(cases.count) ever tracked")
    }

    @Test("a display that goes away mid-check: the check ends without an outcome, nothing confirmed after")
    func displayGoesAway() throws {
        // Cases whose checks run (with a display) are played with the display gone from 0.7 s.
        var confirmedAfter = 0, checkedBefore = 0
        for c in PlacementGenerator.cases(200, seed: 5) {
            var runner = try ScenarioRunner(c.scenario)
            var core = FrameCore(definitions: runner.world.definitions, engineConfig: EngineConfig())
            while !runner.isFinished {
                var frame = runner.nextFrame()
                frame.drawing = frame.time < 0.7
                let (out, plan) = core.advance(frame)
                for e in out.events {
                    if case .checkRequested = e.event, frame.drawing { checkedBefore += 1 }
                }
                if frame.drawing, plan.overlayChanged { runner.present(plan.overlay, at: frame.time) }
                if !frame.drawing {
                    confirmedAfter += plan.outcomes.filter { if case .confirmed = $0.result { true } else { false } }.count
                    #expect(plan.overlay.patches.isEmpty)
                }
            }
        }
        #expect(checkedBefore > 0)
        #expect(confirmedAfter == 0)
    }

    @Test("two PERCs of one pattern set down 50 ms apart, no display: each is guessed on its own traces")
    func twoTogetherWithoutADisplay() throws {
        // Both triples lie in both time windows, so each is contested; with no check to decide,
        // each goes to the PERC whose field came on nearest its touches (before: both stayed
        // onSurface for the whole run).
        var runner = try ScenarioRunner(try #require(BuiltInScenarios.named("two-percs-together")))
        var engine = Engine(config: EngineConfig(), definitions: runner.world.definitions)
        var last: EngineOutput?
        var unchecked = 0
        while !runner.isFinished {
            var frame = runner.nextFrame()
            frame.drawing = false
            let out = engine.step(frame, outcomes: [])
            #expect(out.needs.isEmpty)
            unchecked += out.events.filter { if case .transition(_, .tracked, _) = $0.event { true } else { false } }.count
            if frame.time < 3.4 { last = out }
        }
        let out = try #require(last)
        for id: TangibleID in [1, 2] {
            let t = try #require(out.tangible(id))
            #expect(t.state == .tracked, "PERC \(id): \(t.state)")
            #expect(t.provenance == .guessed)
            #expect(t.traces.count == 3)
            for tr in t.traces {
                let contact = engine.table.summary(tr).flatMap { runner.world.truth.contacts[$0.contactID] }
                guard case .marker(let owner, _)? = contact?.maker else { Issue.record("PERC \(id) holds a finger's trace"); continue }
                #expect(owner == id, "PERC \(id) holds PERC \(owner)'s trace")
            }
        }
        #expect(unchecked >= 2)
    }

    @Test("frames without `drawing` (older recordings) read as drawn")
    func olderFramesReadAsDrawn() throws {
        let old = #"{"number":3,"time":1.5,"contacts":[],"sensorEvents":[],"presented":[]}"#
        let f = try JSONDecoder().decode(Frame.self, from: Data(old.utf8))
        #expect(f.drawing)
        var off = f
        off.drawing = false
        let back = try JSONDecoder().decode(Frame.self, from: JSONEncoder().encode(off))
        #expect(!back.drawing)
    }
}
