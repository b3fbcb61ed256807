// Scenario tests in the simulator: sensors that miss and flip on their own never confirm the wrong one.
import Testing
import MTKTangibles
import MTKSimulator
@testable import LightCheck

@Suite struct UnreliableSensorScenarioTests {
    struct Tally { var right = 0, wrong = 0, inconclusive = 0, rejected = 0, undecided = 0, spontaneous = 0 }

    func tally(k: Int, seeds: ClosedRange<UInt64>, model: HardwareModel, limit: Seconds = 5) -> Tally {
        var t = Tally()
        for seed in seeds {
            var rig = Scenarios.rig(seed: seed, k: k, model: model)
            rig.run(until: limit, untilDecided: true)
            t.spontaneous += rig.planner.diagnostics.spontaneousFlips.values.reduce(0, +)
            for c in rig.checks {
                switch c.score(rig.outcome(of: c.request)?.result) {
                case .confirmedRight: t.right += 1
                case .confirmedWrong: t.wrong += 1
                case .inconclusive: t.inconclusive += 1
                case .rejectedRight, .rejectedWrong: t.rejected += 1
                case .undecided: t.undecided += 1
                }
            }
        }
        return t
    }

    @Test func aSensorThatMissesOftenStillConfirmsOnlyTheRightOne() {
        var model = HardwareModel()
        model.lightMissProbability = 0.3
        let t = tally(k: 4, seeds: 1...20, model: model)
        #expect(t.wrong == 0)
        #expect(t.right >= 15)
    }

    @Test func aSensorThatNeverAnswersConfirmsNothing() {
        var model = HardwareModel()
        model.lightMissProbability = 1
        let t = tally(k: 2, seeds: 1...10, model: model)
        #expect(t.right == 0 && t.wrong == 0)
        #expect(t.inconclusive + t.rejected == 10)
    }

    @Test func spontaneousFlipsDuringChecksAreRecognisedAndDoNotDecide() {
        var model = HardwareModel()
        model.lightSpontaneousFlipRate = 0.3
        let t = tally(k: 4, seeds: 1...20, model: model)
        #expect(t.wrong == 0)
        #expect(t.right >= 16)
        #expect(t.spontaneous > 0)
    }
}
