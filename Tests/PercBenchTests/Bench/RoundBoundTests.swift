// The bound on light-checked placements over a time limit: the most poses any policy can confirm in a budget.
import Testing
@testable import PercBench
import MTKSimulator

@Suite struct RoundBoundTests {
    let rounds = RoundBound(answered: 0.07, silent: 0.118)

    /// Two answered rounds, or a silent and an answered one, fit in 0.21 s: of four poses a
    /// policy confirms at most two (probe one alone: answered, or silent and then the next);
    /// of two poses both; of six still two.
    @Test func twoRoundsConfirmAtMostTwoPoses() {
        #expect(rounds.maxConfirmable(4, within: 0.21) == 2)
        #expect(rounds.maxConfirmable(2, within: 0.19) == 2)
        #expect(rounds.maxConfirmable(6, within: 0.21) == 2)
        #expect(rounds.maxConfirmable(1, within: 0.07) == 1)
        #expect(rounds.maxConfirmable(3, within: 0.069) == 0, "no round fits")
        #expect(rounds.maxConfirmable(8, within: -1) == 0)
    }

    /// More time confirms more, never fewer, and never more poses than there are.
    @Test func moreTimeNeverConfirmsFewer() {
        for k in 1...8 {
            var last = 0
            for ms in stride(from: 0, through: 800, by: 10) {
                let n = rounds.maxConfirmable(k, within: Double(ms) / 1000)
                #expect(n >= last && n <= k, "k \(k) at \(ms) ms: \(n) after \(last)")
                last = n
            }
            #expect(last == k, "k \(k): all by 0.8 s")
        }
    }

    /// The model's table: a 60 Hz refresh, 1–4 frames, 30 ms links, the 0.11 s deadline.
    @Test func theModelsRoundLengths() {
        let r = RoundBound(model: HardwareModel(), deadline: 0.11)
        #expect(abs(r.answered - (3.0 / 60 + 0.015 + 0.002)) < 1e-9)
        #expect(abs(r.silent - (0.5 / 60 + 0.11)) < 1e-9)
    }
}
