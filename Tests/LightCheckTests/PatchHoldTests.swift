// Patches stay put under trace jitter (one overlay per plan change) and keep their ids.
import Testing
import MTKTangibles
@testable import LightCheck

@Suite struct PatchHoldTests {
    let square = [Vec2(100, 100), Vec2(112, 100), Vec2(100, 112), Vec2(112, 112)]

    /// The candidates moved by `d` (the traces' jitter of a still PERC).
    func jittered(_ d: Vec2) -> [Vec2] { square.map { $0 + d } }

    @Test func jitterWithinTheHoldFractionIssuesNoNewOverlay() {
        var d = HandDriver()
        d.needs = [HandDriver.need(at: square)]
        d.step(at: 0, light: [(1, 1)])
        let first = d.scheduler.overlay
        #expect(!first.patches.isEmpty)
        // 0.6 mm a frame, back and forth: below a quarter of the 4 mm radius.
        for (n, dx) in [0.6, -0.4, 0.5, -0.6, 0.3].enumerated() {
            d.needs = [HandDriver.need(at: jittered(Vec2(dx, n % 2 == 0 ? 0.3 : -0.3)))]
            d.step()
            #expect(d.scheduler.overlay.id == first.id, "jitter of \(dx) mm made a new overlay")
            #expect(d.scheduler.overlay.patches.map(\.center) == first.patches.map(\.center))
        }
    }

    @Test func aRealMoveMovesThePatchAndKeepsItsID() {
        var d = HandDriver()
        d.needs = [HandDriver.need(at: square)]
        d.step(at: 0, light: [(1, 1)])
        let first = d.scheduler.overlay
        d.needs = [HandDriver.need(at: jittered(Vec2(2, 0)))]
        d.step()
        let moved = d.scheduler.overlay
        #expect(moved.id == first.id + 1)
        #expect(Set(moved.patches.map(\.id)) == Set(first.patches.map(\.id)), "ids are stable for a patch's life")
        for p in moved.patches {
            let before = first.patches.first { $0.id == p.id }!
            #expect(abs(p.center.x - before.center.x - 2) < 1e-9)
        }
    }

    @Test func holdingCanBeSwitchedOffAndBadValuesAreRefused() {
        var config = LightCheckConfig()
        config.patchHoldFraction = 0
        var d = HandDriver(config: config)
        d.needs = [HandDriver.need(at: square)]
        d.step(at: 0, light: [(1, 1)])
        let first = d.scheduler.overlay.id
        d.needs = [HandDriver.need(at: jittered(Vec2(0.5, 0)))]
        d.step()
        #expect(d.scheduler.overlay.id == first + 1)
        config.patchHoldFraction = 1.5
        #expect(config.validationProblem?.contains("patchHoldFraction") == true)
    }
}
