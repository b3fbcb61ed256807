// Scenario tests in the simulator: a moving tangible is probed where it will be, or waited for.
import Testing
import MTKTangibles
@testable import LightCheck
import LightCheckRig

@Suite struct MovingScenarioTests {
    /// Tangible 1 moves 60 mm in 1.5 s from 0.4 s on; the need is posed from 0.5 s.
    func movingRig(seed: UInt64, strategy: LightCheckConfig.MovingStrategy) -> Scenarios.Rig {
        var config = LightCheckConfig()
        config.movingStrategy = strategy
        var rig = Scenarios.rig(seed: seed, k: 2, config: config)
        rig.run(until: 0.4)
        let start = Scenarios.Rig.standardPose(of: 1).position
        rig.world.move(1, through: [start + Vec2(60, 0)], duration: 1.5)
        return rig
    }

    @Test func aMovingTangibleIsConfirmedWhileItMoves() {
        var right = 0
        for seed in UInt64(1)...10 {
            var rig = movingRig(seed: seed, strategy: .predict)
            rig.run(until: 1.8, untilDecided: true)
            let c = rig.checks[0]
            let o = rig.outcome(of: c.request)
            #expect(c.score(o?.result) != .confirmedWrong)
            if c.score(o?.result) == .confirmedRight, let o, o.time < 1.9 { right += 1 }
        }
        #expect(right >= 9)
    }

    @Test func waitingDrawsNothingUntilItStops() {
        var rig = movingRig(seed: 3, strategy: .wait)
        rig.run(until: 1.8)
        #expect(rig.patchFrames == 0)
        rig.run(until: 4, untilDecided: true)
        #expect(rig.checks[0].score(rig.outcome(of: rig.checks[0].request)?.result) == .confirmedRight)
    }
}
