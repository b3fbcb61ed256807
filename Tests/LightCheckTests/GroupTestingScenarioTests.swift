// Scenario tests in the simulator: group testing of 2, 4 and 8 candidates, one and two tangibles.
import Testing
import MTKTangibles
@testable import LightCheck

@Suite struct GroupTestingScenarioTests {
    /// Runs `seeds` scenarios; returns how many confirmed the right hypothesis, how many a
    /// wrong one, and the mean time from the need to its outcome.
    func run(k: Int, tangibles: Int = 1, seeds: ClosedRange<UInt64>) -> (right: Int, wrong: Int, meanTime: Double, rounds: Double) {
        var right = 0, wrong = 0, time = 0.0, n = 0
        for seed in seeds {
            var rig = Scenarios.rig(seed: seed, k: k, tangibles: tangibles)
            rig.run(until: 5, untilDecided: true)
            for c in rig.checks {
                let o = rig.outcome(of: c.request)
                switch c.score(o?.result) {
                case .confirmedRight: right += 1
                case .confirmedWrong: wrong += 1
                default: break
                }
                if let o { time += o.time - c.from; n += 1 }
            }
        }
        return (right, wrong, time / Double(max(n, 1)), 0)
    }

    @Test func twoCandidatesAreTold() {
        let r = run(k: 2, seeds: 1...20)
        print("k=2", r)
        #expect(r.wrong == 0)
        #expect(r.right >= 19)
    }

    @Test func fourCandidatesAreTold() {
        let r = run(k: 4, seeds: 1...20)
        print("k=4", r)
        #expect(r.wrong == 0)
        #expect(r.right >= 19)
    }

    @Test func eightCandidatesAreTold() {
        let r = run(k: 8, seeds: 1...20)
        print("k=8", r)
        #expect(r.wrong == 0)
        #expect(r.right >= 18)
    }

    @Test func twoTangiblesAreCheckedInTheSameFrames() {
        let r = run(k: 4, tangibles: 2, seeds: 1...10)
        print("2 tangibles", r)
        #expect(r.wrong == 0)
        #expect(r.right >= 19)
    }
}
