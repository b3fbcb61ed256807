// A lower bound on how many light-checked placements end over a time limit, from a round's length alone.
import MTKTangibles
import MTKSimulator

/// A light sensor answers one bit per round: a flip if it lies under a probe, silence if not.
/// A pose is confirmed only by a flip on a probe set in which it is alone. With rounds of a
/// fixed length (`answered` when the sensor flips, `silent` when the round waits out its
/// deadline), no misses and equally likely poses, `maxConfirmable` is the most of k poses any
/// policy can confirm within a time budget: the best split of the first round's probe set,
/// recursively. So at least (k − that) / k of such placements take longer, whatever the
/// scheduler does. Bounds the tail of `bench accuracy` (docs/lightcheck.md).
struct RoundBound {
    var answered: Seconds
    var silent: Seconds

    /// The table's mean round lengths: a patch waits half a refresh to show; the sensor answers
    /// 1–4 refreshes later (the model's range), its notification waits half a connection
    /// interval and the host stack; a silent round lasts the deadline after the patch showed.
    init(model: HardwareModel, deadline: Seconds) {
        let refresh = 1 / model.displayFrameRate
        let frames = (model.lightResponseFramesMin + model.lightResponseFramesMax) / 2
        answered = (0.5 + frames) * refresh + model.bleConnectionInterval / 2 + (model.bleHostStackMin + model.bleHostStackMax) / 2
        silent = 0.5 * refresh + deadline
    }

    init(answered: Seconds, silent: Seconds) { self.answered = answered; self.silent = silent }

    func maxConfirmable(_ poses: Int, within budget: Seconds) -> Int {
        var memo: [Int: Int] = [:]
        // Budgets in whole microseconds, so the memo's keys are exact.
        let flip = Int((answered * 1e6).rounded()), wait = Int((silent * 1e6).rounded())
        func most(_ k: Int, _ b: Int) -> Int {
            guard k > 0, b >= flip else { return 0 }
            if k == 1 { return 1 }
            let key = k << 40 | b
            if let m = memo[key] { return m }
            var best = 0
            for s in 1..<k {
                best = max(best, (s == 1 ? 1 : most(s, b - flip)) + most(k - s, b - wait))
            }
            memo[key] = best
            return best
        }
        return most(poses, Int((budget * 1e6).rounded()))
    }
}
