// Finds an unknown light-sensor offset by bisecting a still tangible's footprint with patches.
import Foundation
import MTKTangibles

/// Noisy bisection over a grid of possible sensor positions covering the footprint. Each
/// round covers the footprint with one decoy disc in the sensor's reported colour and, drawn
/// on top of it (patches are painted in array order), one probe disc in the opposite colour,
/// chosen so that about half of the remaining posterior mass lies under it. A flip means "in
/// the disc", silence until the deadline "outside" (or a miss); Bayes' rule with the same
/// likelihoods as the checks keeps misses and spontaneous flips from deciding alone.
struct CalibrationSearch: Sendable {
    struct Probe: Hashable, Sendable {
        /// Centre in the tangible's own frame.
        var center: Vec2
        var radius: Double
    }

    let request: CalibrationRequest
    let startedAt: Seconds
    private(set) var cells: [Vec2]
    private(set) var weights: [Double]
    /// Mass of "the sensor answers no patch in the footprint" (dead sensor, wrong pose): a
    /// sensor that never answers must not make the least-probed cell look certain.
    private(set) var none: Double
    private(set) var round: CheckRound?
    private(set) var probe: Probe?
    private(set) var rounds = 0
    /// Whether the last round ended with an answer; if not, the next one resets first (a
    /// missed probe is not answered again unless the colour under the sensor changes).
    private(set) var lastRoundAnswered = false
    /// Patch ids: decoy, probe.
    var patchIDs: (Int, Int)?

    init(request: CalibrationRequest, at time: Seconds, settings: CalibrationSettings) {
        self.request = request
        startedAt = time
        let extent = Self.extent(of: request.footprint)
        let g = settings.gridSpacing
        var cells: [Vec2] = []
        let steps = Int((extent / g).rounded(.up))
        if steps > 0 {
            for iy in -steps...steps {
                for ix in -steps...steps {
                    let p = Vec2(Double(ix) * g, Double(iy) * g)
                    if request.footprint.contains(p) { cells.append(p) }
                }
            }
        }
        self.cells = cells
        let priorNone = 0.05
        weights = Array(repeating: cells.isEmpty ? 0 : (1 - priorNone) / Double(cells.count), count: cells.count)
        none = cells.isEmpty ? 1 : priorNone
    }

    /// Radius of a disc around the tangible's origin that covers its footprint.
    static func extent(of footprint: Footprint) -> Double {
        switch footprint {
        case .circle(let r): return max(0, r)
        case .polygon(let vs): return vs.map(\.length).max() ?? 0
        }
    }

    var isUsable: Bool { !cells.isEmpty && request.pose.position.isFinite && request.pose.angle.isFinite }

    mutating func begin(_ r: CheckRound, probe p: Probe?) { round = r; probe = p }

    mutating func setFirstOverlay(_ id: UInt64, onScreenSince: Seconds?) {
        guard var r = round, r.firstOverlayID == nil else { return }
        r.firstOverlayID = id
        if let t = onScreenSince { r.presentedAt = max(t, r.plannedAt) }
        round = r
    }

    mutating func presented(_ report: PresentedOverlay) { round?.presented(report) }

    /// A flip; `.answer` carries its latency when it answered a reported presentation.
    mutating func flip(at time: Seconds, config: LightCheckConfig) -> VerificationCheck.FlipVerdict {
        guard let r = round else { return .spontaneous }
        round = nil
        lastRoundAnswered = false
        switch r.meaning(ofFlipAt: time, config: config) {
        case .primed:
            return .primed
        case .unexplained:
            return .spontaneous
        case .answer(let window, let latency):
            guard let p = probe else { return .spontaneous }
            update(flipped: true, probe: p, window: window, config: config)
            lastRoundAnswered = true
            return .answer(latency: latency)
        }
    }

    /// The clock; true when a priming round ended without a flip.
    mutating func tick(at time: Seconds, deadline: Seconds, presentationDelay: Seconds, config: LightCheckConfig) -> Bool {
        guard var r = round else { return false }
        let result = r.tick(at: time, deadline: deadline, presentationDelay: presentationDelay, config: config)
        round = r
        switch result {
        case .running:
            return false
        case .primedSilently:
            round = nil
            lastRoundAnswered = false
            return true
        case .silent(let window):
            round = nil
            lastRoundAnswered = false
            if let p = probe { update(flipped: false, probe: p, window: window, config: config) }
            return false
        }
    }

    private mutating func update(flipped: Bool, probe p: Probe, window: Double, config: LightCheckConfig) {
        rounds += 1
        let lk = FlipLikelihood.make(window: window, config: config)
        let blur = config.calibration.edgeBlur
        var total = 0.0
        for i in cells.indices {
            let inside = Self.insideFraction(cells[i].distance(to: p.center), radius: p.radius, blur: blur)
            let pf = inside * lk.probed + (1 - inside) * lk.decoyed
            weights[i] *= flipped ? pf : 1 - pf
            total += weights[i]
        }
        none *= flipped ? lk.uncovered : 1 - lk.uncovered
        total += none
        if total > 0 { for i in weights.indices { weights[i] /= total }; none /= total }
    }

    /// 1 well inside the disc, 0 well outside, linear across the blurred edge.
    static func insideFraction(_ d: Double, radius: Double, blur: Double) -> Double {
        guard blur > 0 else { return d <= radius ? 1 : 0 }
        return min(1, max(0, (radius + blur - d) / (2 * blur)))
    }

    /// The disc for the next round: most information per expected second.
    func nextProbe(selector: ProbeSelector, settings: CalibrationSettings, blur: Double) -> Probe {
        let maxW = weights.max() ?? 0
        let active = cells.indices.filter { weights[$0] > maxW * 1e-6 }
        var centers = Set<Vec2>()
        for i in active.sorted(by: { weights[$0] > weights[$1] || (weights[$0] == weights[$1] && $0 < $1) }).prefix(16) {
            centers.insert(cells[i])
        }
        // A coarse lattice (about 5 mm) over the cells still in play.
        let step = 5.0
        for i in active {
            let c = cells[i]
            let half = settings.gridSpacing / 2
            if abs(c.x - (c.x / step).rounded() * step) < half, abs(c.y - (c.y / step).rounded() * step) < half { centers.insert(c) }
        }
        let extent = Self.extent(of: request.footprint)
        let radii = [settings.minProbeRadius, 3, 4, 5.5, 7.5, 10, 13, 17, 22, 28].filter { $0 >= settings.minProbeRadius && $0 <= extent }
        var best = Probe(center: cells[active.first ?? 0], radius: settings.minProbeRadius)
        var bestScore = -Double.infinity
        // Mass by distance from the centre in 0.25 mm bins: each radius then costs one pass
        // over the bins instead of one over the cells.
        let binWidth = 0.25
        var bins = Array(repeating: 0.0, count: Int((2 * extent + 2 * blur) / binWidth) + 2)
        for c in centers.sorted(by: { ($0.x, $0.y) < ($1.x, $1.y) }) {
            for b in bins.indices { bins[b] = 0 }
            for i in active {
                let b = min(bins.count - 1, Int(cells[i].distance(to: c) / binWidth))
                bins[b] += weights[i]
            }
            for r in radii {
                var mass = 0.0
                for b in bins.indices where bins[b] > 0 {
                    mass += bins[b] * Self.insideFraction((Double(b) + 0.5) * binWidth, radius: r, blur: blur)
                }
                let score = selector.score(probedMass: mass, noneMass: none)
                if score > bestScore * (1 + 1e-9) + 1e-12 { bestScore = score; best = Probe(center: c, radius: r) }
            }
        }
        return best
    }

    /// Best estimate (posterior mean near the most likely cell) and its confidence.
    func estimate(tolerance: Double) -> (offset: Vec2, confidence: Double)? {
        guard let top = weights.indices.max(by: { weights[$0] < weights[$1] }) else { return nil }
        var sum = Vec2.zero, mass = 0.0
        for i in cells.indices where cells[i].distance(to: cells[top]) <= tolerance {
            sum += cells[i] * weights[i]; mass += weights[i]
        }
        let mean = mass > 0 ? sum / mass : cells[top]
        let confidence = cells.indices.reduce(0.0) { $0 + (cells[$1].distance(to: mean) <= tolerance ? weights[$1] : 0) }
        return (mean, confidence)
    }

    func result(at time: Seconds, settings: CalibrationSettings, finished: Bool) -> CalibrationResult? {
        guard isUsable, let e = estimate(tolerance: settings.tolerance) else {
            return CalibrationResult(tangible: request.tangible, status: .cancelled, offset: nil, surfacePosition: nil,
                                     confidence: 0, tolerance: settings.tolerance, rounds: rounds, time: time)
        }
        let status: CalibrationResult.Status
        if e.confidence >= settings.targetConfidence { status = .found }
        else if rounds >= settings.maxRounds || finished { status = finished && rounds < settings.maxRounds ? .cancelled : .budgetExhausted }
        else { return nil }
        return CalibrationResult(tangible: request.tangible, status: status, offset: e.offset,
                                 surfacePosition: request.pose.apply(e.offset), confidence: e.confidence,
                                 tolerance: settings.tolerance, rounds: rounds, time: time)
    }
}
