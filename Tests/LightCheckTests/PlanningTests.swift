// What the scheduler draws: group splits, decoys, footprints, stationary checks, several tangibles.
import Testing
import MTKTangibles
@testable import LightCheck

@Suite struct PlanningTests {
    let square = [Vec2(100, 100), Vec2(112, 100), Vec2(100, 112), Vec2(112, 112)]

    @Test func fourCandidatesAreSplitIntoProbesAndDecoys() {
        var d = HandDriver()
        d.needs = [HandDriver.need(at: square)]
        d.step(at: 0, light: [(1, 1)])
        let patches = d.scheduler.overlay.patches
        #expect(patches.count == 4)
        let probes = patches.filter { $0.purpose == .probe }
        let decoys = patches.filter { $0.purpose == .decoy }
        #expect(probes.count >= 1 && probes.count <= 3)
        #expect(probes.allSatisfy { $0.colour == .black })
        #expect(decoys.allSatisfy { $0.colour == .white })
        #expect(Set(patches.map(\.center)) == Set(square))
    }

    @Test func answersNarrowTheGroupDown() {
        // The sensor is under candidate 3 and answers every probe over it after 50 ms.
        var d = HandDriver()
        d.needs = [HandDriver.need(at: square)]
        d.step(at: 0, light: [(1, 1)])
        var colour = LightColour.white
        var rounds = 0
        while d.outcomes.isEmpty && d.time < 3 {
            _ = d.presentNow()
            let start = d.time
            let atSensor = d.scheduler.overlay.patches.first { $0.center == square[3] }
            if atSensor?.colour == colour.opposite {
                colour = colour.opposite
                d.step(at: start + 0.05, light: [(1, colour.sensorValue)])
            } else {
                d.step(at: start + d.scheduler.deadline(for: 1))
            }
            rounds += 1
        }
        #expect(d.outcomes.first?.result == .confirmed(hypothesis: 3))
        #expect(rounds <= 4)
    }

    @Test func patchesShrinkSoNeighboursDoNotTouch() {
        var d = HandDriver()
        d.needs = [HandDriver.need(at: [Vec2(100, 100), Vec2(106, 100)])]
        d.step(at: 0, light: [(1, 0)])
        let r = d.scheduler.overlay.patches.map(\.radius)
        #expect(r.allSatisfy { $0 <= (6 - LightCheckConfig().patchGap) / 2 + 1e-9 })
    }

    @Test func strictFootprintsDrawNothingOutsideAndGiveUp() {
        var config = LightCheckConfig()
        config.footprintPolicy = .strict
        var d = HandDriver(config: config)
        d.needs = [HandDriver.need(at: [Vec2(100, 100), Vec2(180, 100)])]
        d.step(at: 0, light: [(1, 0)])
        #expect(d.scheduler.overlay.patches.isEmpty)
        d.step()
        #expect(d.outcomes.first?.result == .inconclusive)
    }

    @Test func preferCoveredDrawsFarCandidatesInsideTheirOwnFootprints() {
        var d = HandDriver()
        d.needs = [HandDriver.need(at: [Vec2(100, 100), Vec2(180, 100)])]
        d.step(at: 0, light: [(1, 0)])
        #expect(d.scheduler.overlay.patches.count == 2)
    }

    @Test func stationaryChecksAreSmallAndRare() {
        var d = HandDriver()
        d.needs = [HandDriver.need(kind: .stationary, at: [Vec2(100, 100)])]
        d.step(at: 0, light: [(1, 0)])
        let p = d.scheduler.overlay.patches
        #expect(p.count == 1)
        #expect(p.first?.purpose == .stationary)
        #expect(p.first?.radius == LightCheckConfig().stationaryPatchRadius)
        _ = d.presentNow()
        d.step(at: 0.05, light: [(1, 1)])
        #expect(d.outcomes.first?.result == .confirmed(hypothesis: 0))
        // The engine asks again at once: the scheduler waits out the interval.
        d.needs = [HandDriver.need(request: 8, kind: .stationary, at: [Vec2(100, 100)])]
        d.step(at: 1.0)
        #expect(d.scheduler.overlay.patches.isEmpty)
        d.step(at: 0.05 + LightCheckConfig().stationaryMinInterval)
        #expect(d.scheduler.overlay.patches.count == 1)
    }

    @Test func twoTangiblesShareOneOverlay() {
        var d = HandDriver()
        d.needs = [HandDriver.need(tangible: 1, request: 1, at: [Vec2(100, 100), Vec2(112, 100)]),
                   HandDriver.need(tangible: 2, request: 2, at: [Vec2(300, 100), Vec2(312, 100)])]
        d.step(at: 0, light: [(1, 0), (2, 1)])
        let byTangible = Dictionary(grouping: d.scheduler.overlay.patches, by: \.tangible)
        #expect(byTangible[1]?.count == 2)
        #expect(byTangible[2]?.count == 2)
        #expect(Set(d.scheduler.overlay.patches.map(\.id)).count == 4)
    }

    @Test func aMovingTangibleIsProbedAhead() {
        var d = HandDriver()
        d.needs = [HandDriver.need(at: [Vec2(100, 100)], velocity: Vec2(60, 0))]
        d.step(at: 0, light: [(1, 0)])
        let c = d.scheduler.overlay.patches.first?.center
        #expect((c?.x ?? 0) > 100)
        #expect(c?.y == 100)
    }

    @Test func aFastOrWaitingTangibleIsNotProbed() {
        var d = HandDriver()
        d.needs = [HandDriver.need(at: [Vec2(100, 100)], velocity: Vec2(500, 0))]
        d.step(at: 0, light: [(1, 0)])
        #expect(d.scheduler.overlay.patches.isEmpty)
        var config = LightCheckConfig()
        config.movingStrategy = .wait
        var w = HandDriver(config: config)
        w.needs = [HandDriver.need(at: [Vec2(100, 100)], velocity: Vec2(20, 0))]
        w.step(at: 0, light: [(1, 0)])
        #expect(w.scheduler.overlay.patches.isEmpty)
    }
}
