// Chooses which candidates a round probes: most information per expected second (group testing).
import Foundation

/// Adaptive group testing: a round probes a set S of candidates at once (opposite colour)
/// while the others show decoys. The answer "flipped / did not flip by the deadline" is a
/// noisy binary test; S is chosen to maximise the expected information (mutual information
/// between the answer and where the sensor is) per expected second of the round. A flip comes
/// after the latency, silence only at the deadline, so the choice leans to sets likely to flip.
/// With equal weights this is binary splitting: about log2(k) rounds for k candidates.
struct ProbeSelector: Sendable {
    struct Candidate: Hashable, Sendable {
        var mass: Double
        /// Shown inside every live footprint (a probe there cannot be seen by the user).
        var covered: Bool
        /// Already shows the probe colour: probing it needs a reset first.
        var needsReset = false
    }

    var likelihood: FlipLikelihood
    /// Expected time from planning to a flip, and to the deadline.
    var expectedFlipTime: Double
    var expectedSilenceTime: Double
    /// Extra time of a round that must reset first (one presentation).
    var resetTime: Double = 0

    /// - Parameters:
    ///   - candidates: drawable clusters with their posterior mass.
    ///   - uncoveredMass: mass of "none" plus clusters not drawn this round.
    /// - Returns: indices into `candidates` to probe (never empty when candidates exist).
    func choose(_ candidates: [Candidate], uncoveredMass: Double) -> [Int] {
        let n = candidates.count
        guard n > 0 else { return [] }
        var best: [Int] = []
        var bestScore = -Double.infinity
        var bestVisible = Int.max
        func consider(_ set: [Int]) {
            var (info, duration) = evaluate(set, candidates, uncoveredMass: uncoveredMass)
            if set.contains(where: { candidates[$0].needsReset }) { duration += resetTime }
            let score = info / max(duration, 1e-6)
            let visible = set.reduce(0) { $0 + (candidates[$1].covered ? 0 : 1) }
            // Scores within 0.1% are equally fast: then the least visible plan, then the
            // smaller set, then the first in order (deterministic).
            let tolerance = 1e-3 * max(abs(score), abs(bestScore), 1e-12)
            if score > bestScore + tolerance
                || (abs(score - bestScore) <= tolerance
                    && (visible < bestVisible || (visible == bestVisible && set.count < best.count))) {
                best = set; bestScore = max(score, bestScore); bestVisible = visible
            }
        }
        if n <= 12 {
            for mask in 1..<(1 << n) {
                consider((0..<n).filter { mask & (1 << $0) != 0 })
            }
        } else {
            // Too many subsets: consider prefixes of the candidates by falling mass.
            let order = candidates.indices.sorted { candidates[$0].mass > candidates[$1].mass || (candidates[$0].mass == candidates[$1].mass && $0 < $1) }
            for len in 1...n { consider(Array(order.prefix(len)).sorted()) }
        }
        return best
    }

    private func evaluate(_ set: [Int], _ candidates: [Candidate], uncoveredMass: Double) -> (Double, Double) {
        var probed = 0.0, decoyed = 0.0
        var member = Array(repeating: false, count: candidates.count)
        for i in set { member[i] = true }
        for (i, c) in candidates.enumerated() {
            if member[i] { probed += c.mass } else { decoyed += c.mass }
        }
        return evaluate(probed: probed, decoyed: decoyed, uncovered: uncoveredMass)
    }

    /// Expected information (bits) of a round and its expected duration, from the posterior
    /// mass under probes, under decoys and under no patch.
    func evaluate(probed: Double, decoyed: Double, uncovered: Double) -> (info: Double, duration: Double) {
        let l = likelihood
        return evaluate(flip: probed * l.probed + decoyed * l.decoyed,
                        uncertainty: probed * Self.entropy(l.probed) + decoyed * Self.entropy(l.decoyed), uncovered: uncovered)
    }

    /// The same from the sums over the drawn places of mass × flip probability (`flip`) and
    /// mass × its entropy (`uncertainty`), plus the mass under no patch.
    private func evaluate(flip: Double, uncertainty: Double, uncovered: Double) -> (info: Double, duration: Double) {
        let l = likelihood
        let pFlip = flip + uncovered * l.uncovered
        let info = max(0, Self.entropy(pFlip) - (uncertainty + uncovered * Self.entropy(l.uncovered)))
        let duration = pFlip * expectedFlipTime + (1 - pFlip) * expectedSilenceTime
        return (info, duration)
    }

    /// Information per expected second of a disc whose edge may pass through the mass:
    /// `flip` and `uncertainty` as above, where a cell a share f under the probe flips with
    /// f × probed + (1 - f) × decoyed. (A cell on the edge tells little whichever way the
    /// answer goes; counting it as half probed would make a disc that cuts a circle of
    /// cells look like a clean split.)
    func score(flip: Double, uncertainty: Double, noneMass: Double) -> Double {
        let (info, duration) = evaluate(flip: flip, uncertainty: uncertainty, uncovered: noneMass)
        return info / max(duration, 1e-6)
    }

    static func entropy(_ p: Double) -> Double {
        guard p > 0, p < 1 else { return 0 }
        return -(p * log2(p) + (1 - p) * log2(1 - p))
    }
}
