// Learns a tangible's matching tolerance from the jitter observed while it is tracked.

/// A running mean square of a tangible's three-trace fit residuals. The thesis (3.3.1)
/// names per-tangible, per-source thresholds as the most promising improvement: a tight
/// tolerance lets fewer finger triples fit, a loose one survives a jittery table.
struct JitterEstimator: Hashable, Sendable {
    private(set) var meanSquare: Double?
    private(set) var samples = 0

    mutating func observe(rms: Double, smoothing: Double) {
        let sq = rms * rms
        samples += 1
        // Average plainly until there are enough samples for the smoothing weight to matter.
        let w = max(smoothing, 1 / Double(samples))
        meanSquare = meanSquare.map { $0 + w * (sq - $0) } ?? sq
    }

    func tolerance(_ config: EngineConfig) -> Double {
        guard config.adaptTolerance, let ms = meanSquare, samples >= 30 else { return config.tolerance }
        return min(config.maxTolerance, max(config.minTolerance, config.jitterFactor * ms.squareRoot()))
    }
}
