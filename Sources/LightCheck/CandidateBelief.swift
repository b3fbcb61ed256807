// The posterior over a check's hypotheses (plus "none of them"), updated by Bayes' rule.
import Foundation

/// Where the sensor could be during one round, as far as the evidence model cares.
enum ExposureRole: Hashable, Sendable {
    /// Under a probe: sees the opposite of its reported colour.
    case probed
    /// Under a decoy: sees its reported colour.
    case decoyed
    /// Under no patch of ours (not drawn, or none of the hypotheses is right).
    case uncovered
}

/// Likelihoods of "the sensor flipped during the round" for each role.
struct FlipLikelihood: Hashable, Sendable {
    var probed: Double
    var decoyed: Double
    var uncovered: Double

    func of(_ role: ExposureRole) -> Double {
        switch role {
        case .probed: return probed
        case .decoyed: return decoyed
        case .uncovered: return uncovered
        }
    }

    /// For a round whose answer window lasted `window` seconds.
    static func make(window: Double, config: LightCheckConfig) -> FlipLikelihood {
        let w = max(0, window)
        let spont = 1 - exp(-config.spontaneousFlipRate * w)
        let scene = 1 - exp(-config.sceneFlipRate * w)
        let decoy = min(0.5, spont + config.lateResponseProbability)
        let probe = 1 - config.missProbability
        return FlipLikelihood(probed: max(probe, decoy), decoyed: decoy, uncovered: max(scene, decoy))
    }
}

/// What else could have made the sensor flip during a round, besides this round's patches
/// (`LightCheckConfig.everyPatchEvidence`): another patch under the sensor (another
/// tangible's, on screen or just gone, or one of this check's that just went) explains the
/// flip for every place under it, and for "none" when it lies where the sensor could be
/// (or when another tangible's sensor answered this round's patch: that may be its place).
struct FlipExplanation: Hashable, Sendable {
    /// Hypotheses under a patch that could have made the sensor flip.
    var explained: Set<Int> = []
    /// "None of them": such a patch lies off every hypothesis offered now (or on one that
    /// left the need), where the sensor may be.
    var none = false

    static let nothing = FlipExplanation()
}

/// Normalised weights, one per hypothesis id (kept sorted by id so that every sum and every
/// tie-break runs in the same order, bit for bit), and the weight of "none is right".
struct CandidateBelief: Hashable, Sendable {
    private(set) var ids: [Int]
    private(set) var weights: [Double]
    private(set) var none: Double
    /// The prior of "none is right", and the weights of hypotheses that left (a hypothesis
    /// that comes back gets its weight back).
    private let priorNone: Double
    private var dormant: [Int: Double] = [:]

    init(ids: [Int], priorNone: Double) {
        self.priorNone = priorNone
        let sorted = Array(Set(ids)).sorted()
        self.ids = sorted
        let each = sorted.isEmpty ? 0 : (1 - priorNone) / Double(sorted.count)
        self.weights = Array(repeating: each, count: sorted.count)
        self.none = sorted.isEmpty ? 1 : priorNone
    }

    func weight(of id: Int) -> Double {
        guard let i = ids.firstIndex(of: id) else { return 0 }
        return weights[i]
    }

    /// Keeps the belief in step with the engine's current hypotheses: dropped ids lose their
    /// weight (kept aside in case they come back). A new id is one more way for "none of
    /// the others" to be true, so the new ones take their prior share of the "none" mass,
    /// (1 − priorNone) of it: a newcomer is tested before the check can reject it with the
    /// others, and cannot win without answers of its own.
    mutating func sync(to current: [Int]) {
        let wanted = Array(Set(current)).sorted()
        guard wanted != ids else { return }
        for (id, w) in zip(ids, weights) where !wanted.contains(id) { dormant[id] = w }
        let fresh = wanted.filter { !ids.contains($0) && dormant[$0] == nil }
        let share = fresh.isEmpty ? 0 : none * (1 - priorNone) / Double(fresh.count)
        var newWeights: [Double] = []
        for id in wanted {
            if let i = ids.firstIndex(of: id) {
                newWeights.append(weights[i])
            } else if let w = dormant.removeValue(forKey: id) {
                newWeights.append(w)
            } else {
                newWeights.append(max(share, 1e-6))
            }
        }
        if !fresh.isEmpty { none -= share * Double(fresh.count) }
        ids = wanted
        weights = newWeights
        normalise()
    }

    /// Bayes' rule for one round: `flipped` is what happened, `role(id)` where each hypothesis
    /// would have put the sensor; "none" puts it under no patch of ours. A flip that another
    /// patch could explain (`explanation`) is as likely as a probe's answer for the places
    /// under that patch, and for "none" when the explanation says so.
    mutating func update(flipped: Bool, likelihood: FlipLikelihood, role: (Int) -> ExposureRole,
                         explanation: FlipExplanation = .nothing, weighDormant: Bool = false) {
        func p(_ id: Int) -> Double {
            var p = likelihood.of(role(id))
            guard flipped else { return p }
            if explanation.explained.contains(id) { p = max(p, likelihood.probed) }
            return p
        }
        for i in ids.indices {
            let q = p(ids[i])
            weights[i] *= flipped ? q : 1 - q
        }
        var pn = likelihood.uncovered
        if flipped && explanation.none { pn = max(pn, likelihood.probed) }
        none *= flipped ? pn : 1 - pn
        // A hypothesis the engine left out this frame is still one: the round tells about it
        // too (its role is the round's, drawn or not), on the scale of the others, so one that
        // comes and goes with jitter (a pair near the tolerance of two sides, offered on one
        // side one frame and on the other the next) is weighed by every round, not only by
        // those that ended while it was offered (`LightCheckConfig.evidenceByPlace`).
        if weighDormant, !dormant.isEmpty {
            let total = weights.reduce(0, +) + none
            if total > 0, total.isFinite {
                for (id, w) in dormant { dormant[id] = w * (flipped ? p(id) : 1 - p(id)) / total }
            }
        }
        normalise()
    }

    private mutating func normalise() {
        let total = weights.reduce(0, +) + none
        guard total > 0, total.isFinite else {
            let n = Double(ids.count + 1)
            weights = Array(repeating: 1 / n, count: ids.count); none = 1 / n
            return
        }
        for i in weights.indices { weights[i] /= total }
        none /= total
    }
}
