// A caller's patches (diagnose's light test) drawn by the scheduler: its ids, its overlay, the tangible's needs waiting.
import Testing
import MTKTangibles
@testable import LightCheck

@Suite struct TestPatchesTests {
    let square = [Vec2(100, 100), Vec2(112, 100), Vec2(100, 112), Vec2(112, 112)]

    static func patch(_ id: Int, at c: Vec2, _ colour: LightColour) -> Patch {
        Patch(id: id, tangible: 99, center: c, radius: 6, colour: colour, purpose: .stationary)
    }

    @Test func thePatchesAreDrawnWithTheSchedulersIDsAndTheOverlayTheyFirstShowedIn() {
        var d = HandDriver()
        d.step(at: 0, light: [(1, 0)])
        #expect(d.scheduler.testOverlay(of: 1) == nil)
        let taken = d.scheduler.showTestPatches([Self.patch(900_000, at: Vec2(50, 50), .black)], for: 1, at: d.time)
        #expect(taken)
        d.step()
        let first = d.scheduler.overlay
        #expect(first.patches.count == 1 && first.patches[0].tangible == 1 && first.patches[0].id < 900_000, "\(first)")
        #expect(d.scheduler.testOverlay(of: 1) == first.id)
        // The same patch, 0.4 mm off (a still tangible's jitter): no new overlay.
        d.scheduler.showTestPatches([Self.patch(900_000, at: Vec2(50.4, 50), .black)], for: 1, at: d.time)
        d.step()
        #expect(d.scheduler.overlay.id == first.id && d.scheduler.testOverlay(of: 1) == first.id)
        // The probe (a new patch of the caller): a new overlay, and the test's overlay follows it.
        d.scheduler.showTestPatches([Self.patch(900_001, at: Vec2(50, 50), .white)], for: 1, at: d.time)
        d.step()
        let probe = d.scheduler.overlay
        #expect(probe.id == first.id + 1 && probe.patches.map(\.colour) == [.white] && d.scheduler.testOverlay(of: 1) == probe.id)
        #expect(probe.patches[0].id != first.patches[0].id)
        // Taken off: nothing left on screen, no test overlay.
        d.scheduler.showTestPatches(nil, for: 1, at: d.time)
        d.step()
        #expect(d.scheduler.overlay.patches.isEmpty && d.scheduler.testOverlay(of: 1) == nil)
    }

    @Test func aRunningCheckIsWithdrawnAndTheNeedWaitsUntilTheTestIsOver() {
        var d = HandDriver()
        d.needs = [HandDriver.need(at: square)]
        d.step(at: 0, light: [(1, 1)])
        #expect(d.scheduler.activeRequest(of: 1) == 7 && !d.scheduler.overlay.patches.isEmpty)
        let taken = d.scheduler.showTestPatches([Self.patch(1, at: Vec2(300, 300), .white)], for: 1, at: d.time)
        #expect(taken)
        d.step()
        #expect(d.scheduler.activeRequest(of: 1) == nil && d.scheduler.diagnostics.withdrawnNeeds == 1)
        #expect(d.scheduler.overlay.patches.map(\.center) == [Vec2(300, 300)], "only the test's patch: \(d.scheduler.overlay)")
        // The sensor answers the test's patch, again and again: no outcome, no spontaneous flip.
        for n in 0..<120 {
            if n % 20 == 0 { _ = d.presentNow() }
            d.step(light: n % 30 == 10 ? [(1, n / 30 % 2)] : [])
        }
        #expect(d.outcomes.isEmpty && d.scheduler.activeRequest(of: 1) == nil)
        #expect(d.scheduler.diagnostics.spontaneousFlips[1] == nil, "\(d.scheduler.diagnostics.spontaneousFlips)")
        // Over: the need's check starts again, with its own patches.
        d.scheduler.showTestPatches(nil, for: 1, at: d.time)
        d.idle(until: d.time + 1)
        #expect(d.scheduler.activeRequest(of: 1) == 7)
        #expect(!d.scheduler.overlay.patches.isEmpty && !d.scheduler.overlay.patches.contains { $0.center == Vec2(300, 300) })
    }

    @Test func anotherTangiblesRoundKeepsOffTheTestsPatch() {
        var d = HandDriver()
        d.scheduler.showTestPatches([Self.patch(1, at: Vec2(124, 106), .white)], for: 2, at: 0)
        d.needs = [HandDriver.need(at: square)]
        d.step(at: 0, light: [(1, 1), (2, 1)])
        let test = d.scheduler.overlay.patches.filter { $0.tangible == 2 }
        let mine = d.scheduler.overlay.patches.filter { $0.tangible == 1 }
        #expect(test.count == 1 && !mine.isEmpty)
        for p in mine { #expect(p.center.distance(to: test[0].center) >= p.radius + test[0].radius, "\(p) overlaps the test's patch") }
    }

    @Test func aCalibrationHoldsTheSensorAndTheTestIsRefused() {
        var d = HandDriver()
        d.step(at: 0, light: [(1, 1)])
        let started = d.scheduler.startCalibration(CalibrationRequest(tangible: 1, pose: Pose(position: Vec2(200, 200), angle: 0),
                                                                      footprint: .circle(radius: 30)), at: d.time)
        let taken = d.scheduler.showTestPatches([Self.patch(1, at: Vec2(300, 300), .white)], for: 1, at: d.time)
        #expect(started && !taken)
        d.step()
        #expect(d.scheduler.testOverlay(of: 1) == nil && !d.scheduler.overlay.patches.contains { $0.center == Vec2(300, 300) })
    }
}
