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
        /// Centre in the search's frame (the tangible's own frame for a calibration).
        var center: Vec2
        var radius: Double
    }

    /// What the search is for: a calibration the control API asked for, or an engine's
    /// `locate` need (its cells are the hypotheses' sensor positions, on the surface).
    enum Purpose: Sendable {
        case calibration(CalibrationRequest)
        case locate(request: UInt64, ids: [Int])
    }

    let purpose: Purpose
    /// `LightCheckConfig.calibration` or `.locate`, by purpose.
    let settings: CalibrationSettings
    let startedAt: Seconds
    /// Cells and probes are in this frame; `decoys` cover every cell.
    let frame: Pose
    let decoys: [Probe]
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
    /// The last round that ended silent, with the weights, evidence and round count from
    /// before its silence counted (a late answer to it takes that silence back).
    private var silence = SilentRoundMemory<BeforeSilence>()
    typealias BeforeSilence = (weights: [Double], none: Double, evidence: [LocateEvidence], rounds: Int)
    /// Patch ids: the first decoy's (the others follow it), the probe's.
    var patchIDs: (Int, Int)?
    /// A locate search's finished rounds, and those it took over from the tangible's locate
    /// before (`replay`), oldest first: a later locate of the same still PERC goes on from
    /// them (at most `maxEvidence`).
    private(set) var evidence: [LocateEvidence] = []
    static let maxEvidence = 48
    /// A locate's sensor positions by lone touch: its own, then those of earlier locates it
    /// took rounds over from, around touches it does not search (at most `maxGroups` in all).
    private(set) var touchGroups: [TouchCells] = []
    static let maxGroups = 16
    /// Disc-and-cell distances one replay may compute (a few milliseconds).
    static let maxReplayWork = 1_000_000

    /// The sensor positions of a locate's poses around one lone touch (the circles' centre).
    struct TouchCells: Sendable {
        var touch: Vec2
        var cells: [Vec2]
    }

    /// One finished locate round: the discs on screen and whether the sensor answered.
    struct LocateEvidence: Sendable {
        var probe: Probe
        var decoys: [Probe]
        var flipped: Bool
        var likelihood: FlipLikelihood
        var at: Seconds
    }

    init(request: CalibrationRequest, at time: Seconds, settings: CalibrationSettings) {
        let extent = request.footprint.extent
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
        self.init(purpose: .calibration(request), settings: settings, frame: request.pose, cells: cells,
                  decoys: [Probe(center: .zero, radius: extent)], priorNone: 0.05, at: time)
    }

    /// A locate need: the cells are its hypotheses' sensor positions; one decoy disc per
    /// touch covers the circles around it (`margin` beyond the farthest cell).
    init(locate need: VerificationNeed, at time: Seconds, settings: CalibrationSettings, margin: Double) {
        let hs = need.hypotheses
        var decoys: [Probe] = []
        var groups: [TouchCells] = []
        for group in Dictionary(grouping: hs, by: { $0.traces.first ?? 0 }).sorted(by: { $0.key < $1.key }) {
            let centre = group.value.reduce(Vec2.zero) { $0 + $1.sensorPosition } / Double(group.value.count)
            let r = group.value.map { $0.sensorPosition.distance(to: centre) }.max() ?? 0
            decoys.append(Probe(center: centre, radius: r + margin))
            groups.append(TouchCells(touch: centre, cells: group.value.map(\.sensorPosition)))
        }
        self.init(purpose: .locate(request: need.request, ids: hs.map(\.id)), settings: settings, frame: Pose(position: .zero, angle: 0),
                  cells: hs.map(\.sensorPosition), decoys: decoys, priorNone: 0.1, at: time)
        touchGroups = groups
    }

    private init(purpose: Purpose, settings: CalibrationSettings, frame: Pose, cells: [Vec2], decoys: [Probe],
                 priorNone: Double, at time: Seconds) {
        self.purpose = purpose; self.settings = settings; self.frame = frame; self.cells = cells; self.decoys = decoys
        startedAt = time
        weights = Array(repeating: cells.isEmpty ? 0 : (1 - priorNone) / Double(cells.count), count: cells.count)
        none = cells.isEmpty ? 1 : priorNone
    }

    /// The locate need's request, if this search serves one.
    var locateRequest: UInt64? {
        if case .locate(let r, _) = purpose { return r }
        return nil
    }

    var isLocate: Bool { locateRequest != nil }

    /// Largest probe radius: the largest decoy's.
    var maxRadius: Double { decoys.map(\.radius).max() ?? 0 }

    var isUsable: Bool { !cells.isEmpty && frame.position.isFinite && frame.angle.isFinite }

    mutating func begin(_ r: CheckRound, probe p: Probe?) { round = r; probe = p }

    mutating func setFirstOverlay(_ id: UInt64, onScreenSince: Seconds?) {
        guard var r = round, r.firstOverlayID == nil else { return }
        r.firstOverlayID = id
        if let t = onScreenSince { r.presentedAt = max(t, r.plannedAt) }
        round = r
    }

    mutating func presented(_ report: PresentedOverlay) { round?.presented(report) }

    /// A flip; `.answer` carries its latency when it answered a reported presentation.
    /// `changedAt`: when the sensor's clock says it changed (see `VerificationCheck.flip`).
    mutating func flip(at time: Seconds, changedAt: Seconds? = nil, config: LightCheckConfig) -> VerificationCheck.FlipVerdict {
        let meaning = round?.meaning(ofFlipAt: time, changedAt: changedAt, config: config)
        let late = silence.take(flipAt: time, changedAt: changedAt, answersNoRound: meaning?.answersNoRound ?? true, config: config)
        guard let meaning else { return takeBack(late) }
        round = nil
        lastRoundAnswered = false
        switch meaning {
        case .primed:
            return .primed
        case .beforeRound:
            return takeBack(late)
        case .unexplained:
            return config.lateAnswersPastDeadline ? takeBack(late) : .spontaneous
        case .answer(let window, let latency, _, _):
            guard let p = probe else { return .spontaneous }
            update(flipped: true, probe: p, window: window, config: config, at: time)
            lastRoundAnswered = true
            return .answer(latency: latency, response: nil)
        }
    }

    /// A flip that may answer patches gone before this round (`LightCheckConfig.locateInQuiet`):
    /// the round is void and counts for nothing; the next one starts from the new colour.
    mutating func void() {
        round = nil
        lastRoundAnswered = false
    }

    /// A late answer: the silent round before no longer counts (see `VerificationCheck`).
    private mutating func takeBack(_ late: (verdict: VerificationCheck.FlipVerdict, before: BeforeSilence?)) -> VerificationCheck.FlipVerdict {
        if let b = late.before { weights = b.weights; none = b.none; evidence = b.evidence; rounds = b.rounds }
        return late.verdict
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
            silence.ended(r, at: time, before: (weights, none, evidence, rounds))
            if let p = probe { update(flipped: false, probe: p, window: window, config: config, at: time) }
            return false
        }
    }

    private mutating func update(flipped: Bool, probe p: Probe, window: Double, config: LightCheckConfig, at time: Seconds) {
        rounds += 1
        let lk = FlipLikelihood.make(window: window, config: config)
        Self.weigh(cells, &weights, none: &none, flipped: flipped, probe: p, decoys: nil, likelihood: lk, blur: settings.edgeBlur)
        if isLocate {
            evidence.append(LocateEvidence(probe: p, decoys: decoys, flipped: flipped, likelihood: lk, at: time))
            if evidence.count > Self.maxEvidence { evidence.removeFirst(evidence.count - Self.maxEvidence) }
        }
    }

    /// Bayes' rule for one round over `cells`: a cell under the probe flips with `probed`,
    /// one under a decoy with `decoyed`, one under no patch with `uncovered` (the edges
    /// blurred); `decoys` nil: every cell lies under one (the search's own rounds).
    private static func weigh(_ cells: [Vec2], _ weights: inout [Double], none: inout Double, flipped: Bool, probe p: Probe,
                              decoys: [Probe]?, likelihood lk: FlipLikelihood, blur: Double) {
        var total = 0.0
        for i in cells.indices {
            let inside = insideFraction(cells[i].distance(to: p.center), radius: p.radius, blur: blur)
            var pf = inside * lk.probed
            if let decoys {
                let decoyed = decoys.map { insideFraction(cells[i].distance(to: $0.center), radius: $0.radius, blur: blur) }.max() ?? 0
                pf += (1 - inside) * (decoyed * lk.decoyed + (1 - decoyed) * lk.uncovered)
            } else {
                pf += (1 - inside) * lk.decoyed
            }
            weights[i] *= flipped ? pf : 1 - pf
            total += weights[i]
        }
        none *= flipped ? lk.uncovered : 1 - lk.uncovered
        total += none
        if total > 0 { for i in weights.indices { weights[i] /= total }; none /= total }
    }

    /// Takes over the rounds of an earlier locate of the same still tangible (one sharing a
    /// lone touch with this one, where it was; otherwise nothing changes): each weighs the
    /// cells as the discs then on screen covered them (a cell under none of them saw the app's
    /// scene: `uncovered`). The earlier locate's positions around touches this one does not
    /// search (`groups`) are weighed too and their mass goes to "none": where those rounds
    /// found the sensor may be on none of this locate's poses. Rounds are not counted
    /// (`maxRounds` is this search's own).
    mutating func replay(evidence past: [LocateEvidence], groups: [TouchCells]) {
        let own = touchGroups
        // (Only for the same still PERC: the two share a lone touch where it was.)
        guard isLocate, !past.isEmpty, own.contains(where: { o in groups.contains { $0.touch.distance(to: o.touch) <= 1 } })
        else { return }
        // (At most `maxGroups` touches in all: the newest kept.)
        let shadows = Array(groups.filter { g in !own.contains { $0.touch.distance(to: g.touch) <= 1 } }
            .prefix(max(0, Self.maxGroups - own.count)))
        let all = cells + shadows.flatMap(\.cells)
        var w = Array(repeating: (1 - none) / Double(max(1, all.count)), count: all.count)
        var noneMass = none
        // (The newest rounds whose discs × cells fit `maxReplayWork`: one frame's bound.)
        var rounds = past[...]
        var work = rounds.reduce(0) { $0 + ($1.decoys.count + 1) * all.count }
        while work > Self.maxReplayWork, let first = rounds.first {
            work -= (first.decoys.count + 1) * all.count
            rounds = rounds.dropFirst()
        }
        for e in rounds {
            Self.weigh(all, &w, none: &noneMass, flipped: e.flipped, probe: e.probe, decoys: e.decoys, likelihood: e.likelihood,
                       blur: settings.edgeBlur)
        }
        weights = Array(w[..<cells.count])
        none = noneMass + w[cells.count...].reduce(0, +)
        touchGroups = own + shadows
        evidence = Array((Array(rounds) + evidence).suffix(Self.maxEvidence))
    }

    /// 1 well inside the disc, 0 well outside, linear across the blurred edge.
    static func insideFraction(_ d: Double, radius: Double, blur: Double) -> Double {
        guard blur > 0 else { return d <= radius ? 1 : 0 }
        return min(1, max(0, (radius + blur - d) / (2 * blur)))
    }

    /// The disc for the next round: most information per expected second.
    func nextProbe(selector: ProbeSelector) -> Probe {
        let blur = settings.planningBlur > 0 ? settings.planningBlur : settings.edgeBlur
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
        // Cells on circles (a locate) rarely sit on the lattice: every few active cells
        // stand as centres too (about 48).
        if isLocate {
            let stride = max(1, active.count / 48)
            for k in Swift.stride(from: 0, to: active.count, by: stride) { centers.insert(cells[active[k]]) }
            for d in decoys { centers.insert(d.center) }
        }
        let extent = maxRadius
        let radii = [settings.minProbeRadius, 3, 4, 5.5, 7.5, 10, 13, 17, 22, 28].filter { $0 >= settings.minProbeRadius && $0 <= extent }
        var best = Probe(center: cells[active.first ?? 0], radius: settings.minProbeRadius)
        var bestScore = -Double.infinity
        // Mass by distance from the centre in 0.25 mm bins: each radius then costs one pass
        // over the bins instead of one over the cells.
        let binWidth = 0.25
        var bins = Array(repeating: 0.0, count: Int((2 * extent + 2 * blur) / binWidth) + 2)
        let lk = selector.likelihood
        let hProbed = ProbeSelector.entropy(lk.probed), hDecoyed = ProbeSelector.entropy(lk.decoyed)
        for c in centers.sorted(by: { ($0.x, $0.y) < ($1.x, $1.y) }) {
            for b in bins.indices { bins[b] = 0 }
            for i in active {
                let b = min(bins.count - 1, Int(cells[i].distance(to: c) / binWidth))
                bins[b] += weights[i]
            }
            // Around a lone touch the cells lie on one circle per marker: discs centred on
            // the touch in half-millimetre steps can split the circles from each other.
            let fine = isLocate && decoys.contains { $0.center == c }
            for r in fine ? Array(Swift.stride(from: settings.minProbeRadius, through: extent, by: 0.5)) : radii {
                var flip = 0.0, uncertainty = 0.0
                for b in bins.indices where bins[b] > 0 {
                    let f = Self.insideFraction((Double(b) + 0.5) * binWidth, radius: r, blur: blur)
                    let p = f * lk.probed + (1 - f) * lk.decoyed
                    flip += bins[b] * p
                    uncertainty += bins[b] * (f == 0 ? hDecoyed : f == 1 ? hProbed : ProbeSelector.entropy(p))
                }
                let score = selector.score(flip: flip, uncertainty: uncertainty, noneMass: none)
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

    func result(at time: Seconds, finished: Bool) -> CalibrationResult? {
        guard case .calibration(let request) = purpose else { return nil }
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

    /// A locate search's decision: the hypothesis nearest the sensor once it is found within
    /// `tolerance` at `targetConfidence`; rejected when the sensor answers no cell (`none`
    /// reaches `targetConfidence`, or the search is unusable); inconclusive after `maxRounds`.
    func locateDecision() -> VerificationOutcome.Result? {
        guard case .locate(_, let ids) = purpose else { return nil }
        guard isUsable else { return .rejected }
        if none >= settings.targetConfidence { return .rejected }
        if let e = estimate(tolerance: settings.tolerance), e.confidence >= settings.targetConfidence,
           let k = cells.indices.min(by: { cells[$0].distance(to: e.offset) < cells[$1].distance(to: e.offset) }) {
            return .confirmed(hypothesis: ids[k])
        }
        return rounds >= settings.maxRounds ? .inconclusive : nil
    }
}
