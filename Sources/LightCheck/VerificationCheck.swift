// The state machine of one verification need (identify or stationary) of one tangible.
import MTKTangibles

/// Runs rounds for one need until the posterior decides it. States and events are in
/// docs/lightcheck.md ("Check state machine"). Inputs come from ``LightCheckScheduler`` in
/// this order each frame: presented reports, flips, then the clock tick (deadlines).
struct VerificationCheck: Sendable {
    enum State: Hashable, Sendable {
        /// Nothing shown; the next plan starts a round (or holds, see `HoldReason`).
        case idle
        case showing(CheckRound)
        /// Nothing shown, for a reason.
        case holding(HoldReason)
    }

    enum HoldReason: String, Hashable, Sendable {
        /// `sensorBusy`: another check's live candidates are in the way (or a calibration has
        /// the sensor); `behindPatches`: another tangible's patches lie over its candidates, or
        /// went from there less than one deadline ago. Either way it waits its turn.
        case movingTooFast, nothingDrawable, stationaryInterval, sensorBusy, behindPatches
    }

    /// Held until another tangible is out of the way (`sensorBusy` or `behindPatches`).
    var waitsItsTurn: Bool { state == .holding(.sensorBusy) || state == .holding(.behindPatches) }

    /// What a flip meant.
    enum FlipVerdict: Hashable, Sendable {
        /// An answer inside a round's window; latency is set when the presentation was reported,
        /// `response` (presentation → change, by the sensor's clock) when the clock said too.
        case answer(latency: Seconds?, response: Seconds?)
        /// No round could have caused it (nothing showing, too early).
        case spontaneous
        /// The sensor's state became known during a priming round.
        case primed
        /// By the sensor's own clock it changed before the round showing now could be seen, and
        /// after the silent round before it was presented: that round's answer, later than its
        /// deadline. `latency` (from that round's reported presentation) teaches the deadline,
        /// `response` (that presentation → the change) the sensor's response span.
        case late(latency: Seconds?, response: Seconds?)
    }

    let tangible: TangibleID
    let request: UInt64
    let kind: VerificationNeed.Kind
    let startedAt: Seconds
    private(set) var need: VerificationNeed
    private(set) var belief: CandidateBelief
    private(set) var state: State = .idle
    private(set) var rounds = 0
    private(set) var voidedRounds = 0
    /// The last round that ended silent, with the belief and round count from before its
    /// silence counted (a late answer to it takes that silence back, `FlipVerdict.late`).
    private var silence = SilentRoundMemory<BeforeSilence>()
    typealias BeforeSilence = (belief: CandidateBelief, rounds: Int)
    /// Hypotheses that were under a probe when the sensor answered: only these may be
    /// confirmed (an identify check's winner needs an answer of its own, not only the
    /// weight the others left behind when they went).
    private(set) var answered: Set<Int> = []
    /// The probe sets of the rounds the sensor answered, and the hypotheses that left the
    /// need while they held weight (for `toldApartFromDeparted`).
    private(set) var answerSets: [Set<Int>] = []
    /// The answer sets of flips no other tangible's patch explained for "none" (what makes a
    /// place occupied, `LightCheckConfig.occupiedPlaces`).
    private(set) var cleanAnswerSets: [Set<Int>] = []
    private(set) var departedLive: Set<Int> = []
    /// The hypotheses offered when the check began, and those that joined later (for
    /// `toldApartFromNewcomers`).
    private let firstOffered: Set<Int>
    private(set) var newcomers: Set<Int> = []
    /// Stable patch id per hypothesis id, so a candidate keeps its patch across rounds.
    var patchIDs: [Int: Int] = [:]
    /// Whether the last tick had to assume the presentation (no report came in time).
    private(set) var lastTickAssumedPresentation = false
    /// The colour last drawn at each hypothesis's candidate (absent: nothing drawn there).
    var shown: [Int: LightColour] = [:]
    private var lingering: [Hypothesis] = []
    /// The last sensor position of each hypothesis that left the need (for
    /// `everyPatchEvidence`: a patch that just went there may explain a flip).
    private(set) var departedPositions: [Int: Vec2] = [:]

    init(need: VerificationNeed, at time: Seconds, config: LightCheckConfig) {
        tangible = need.tangible; request = need.request; kind = need.kind
        startedAt = time
        self.need = need
        let prior = need.kind == .stationary ? config.stationaryPriorMoved : config.priorNoneCorrect
        belief = CandidateBelief(ids: need.hypotheses.map(\.id), priorNone: prior)
        firstOffered = Set(need.hypotheses.map(\.id))
    }

    /// The engine's latest view of the need (positions move, hypotheses come and go).
    /// A hypothesis that leaves while the round shows its patch keeps that patch until the
    /// round ends: taking it off would change what the sensor sees if it is there, and the
    /// flip would be read as an answer for the others.
    mutating func update(_ newNeed: VerificationNeed) {
        if let r = currentRound {
            let ids = Set(newNeed.hypotheses.map(\.id))
            for h in need.hypotheses where r.drawn.contains(h.id) && !ids.contains(h.id) && !lingering.contains(where: { $0.id == h.id }) {
                lingering.append(h)
            }
            lingering.removeAll { ids.contains($0.id) }
        }
        let ids = Set(newNeed.hypotheses.map(\.id))
        for h in need.hypotheses where !ids.contains(h.id) {
            departedPositions[h.id] = h.sensorPosition
            if belief.weight(of: h.id) >= 1e-3 { departedLive.insert(h.id) }
        }
        for id in ids { departedPositions[id] = nil; departedLive.remove(id) }
        newcomers.formUnion(ids.subtracting(firstOffered))
        need = newNeed
        belief.sync(to: newNeed.hypotheses.map(\.id))
    }

    /// The weight this check holds within `reach` of `place` once one of its answers singled
    /// that place out (every hypothesis probed in that round lies there; `clean`: only an
    /// answer no other patch explained for "none"); 0 before. Summed in id order.
    func weightSingledOut(at place: Vec2, within reach: Double, clean: Bool) -> Double {
        let here = Set(need.hypotheses.filter { $0.sensorPosition.distance(to: place) < reach }.map(\.id))
        guard (clean ? cleanAnswerSets : answerSets).contains(where: { !$0.isEmpty && $0.isSubset(of: here) }) else { return 0 }
        return here.sorted().reduce(0) { $0 + belief.weight(of: $1) }
    }

    /// Hypotheses that joined while the current round shows a patch over their place take
    /// that patch's role (`LightCheckConfig.evidenceByPlace`): the sensor, if there, has seen
    /// it since the round began. With `intoSets` (`newcomersTakeProbes`) they also join, in a
    /// staggered round, the probe set of the hypotheses `beside` them.
    mutating func adopt(_ ids: [Int], probed: Bool, beside: [Int] = [], intoSets: Bool = false) {
        guard case .showing(var r) = state, !ids.isEmpty else { return }
        r.join(ids, probed: probed, beside: beside, intoSets: intoSets)
        state = .showing(r)
    }

    /// The current round drew its patches with `radius` this frame.
    mutating func drew(radius: Double) {
        guard case .showing(var r) = state else { return }
        r.largestRadius = max(r.largestRadius, radius)
        state = .showing(r)
    }

    /// Hypotheses that left the need while the current round shows their patches (see
    /// `update`); empty when no round shows.
    var lingeringHypotheses: [Hypothesis] { currentRound == nil ? [] : lingering }

    var currentRound: CheckRound? {
        if case .showing(let r) = state { return r }
        return nil
    }

    mutating func presented(_ report: PresentedOverlay) {
        guard case .showing(var r) = state else { return }
        r.presented(report)
        state = .showing(r)
    }

    /// A flip of the sensor in the frame at `time`; `changedAt` when the sensor's clock says
    /// when it changed.
    mutating func flip(at time: Seconds, changedAt: Seconds? = nil, config: LightCheckConfig,
                       explanation: FlipExplanation = .nothing) -> FlipVerdict {
        guard case .showing(let r) = state else {
            return takeBack(silence.take(flipAt: time, changedAt: changedAt, answersNoRound: true, config: config))
        }
        let meaning = r.meaning(ofFlipAt: time, changedAt: changedAt, config: config)
        let late = silence.take(flipAt: time, changedAt: changedAt, answersNoRound: meaning.answersNoRound, config: config)
        state = .idle
        switch meaning {
        case .primed:
            return .primed
        case .beforeRound:
            // Not an answer to this round, whose evidence is void (not counted against
            // `maxVoidedRounds`: the sensor was answering, late); the next starts from the new colour.
            return takeBack(late)
        case .unexplained:
            // A late answer to the silent round before, past its deadline
            // (`lateAnswersPastDeadline`), as `.beforeRound`.
            if config.lateAnswersPastDeadline, late.before != nil { return takeBack(late) }
            // The sensor changed on its own: the round's evidence is void; the next round
            // uses the new colour.
            voidedRounds += 1
            return .spontaneous
        case .answer(let window, let latency, let answeredProbes, let response):
            // A staggered round's answer is to the probe sets it fits; the round's other
            // probes count as decoys (they showed the probe colour before, steadily).
            var e = r
            if let answeredProbes { e.probed = answeredProbes }
            belief.update(flipped: true, likelihood: .make(window: window, config: config), role: e.role(of:),
                          explanation: explanation, weighDormant: config.evidenceByPlace)
            rounds += 1
            answered.formUnion(e.probed)
            // Places another patch explains answered as well as the probed ones: the flip
            // does not tell the probed ones apart from them.
            answerSets.append(e.probed.union(explanation.explained))
            if !explanation.none { cleanAnswerSets.append(e.probed.union(explanation.explained)) }
            // Learn the latency only from flips that look like answers (most of the posterior
            // now under the probes), so a rare spontaneous flip does not teach a short deadline.
            let plausible = e.probed.reduce(0) { $0 + belief.weight(of: $1) } >= 0.5
            return .answer(latency: plausible ? latency : nil, response: plausible ? response : nil)
        }
    }

    /// A late answer shows that the silent round before was not silent: its silence no longer
    /// counts against the places it probed (the round is void instead; which of its places
    /// answered is not read, another tangible's patch may have made it).
    private mutating func takeBack(_ late: (verdict: FlipVerdict, before: BeforeSilence?)) -> FlipVerdict {
        if let before = late.before {
            belief = before.belief
            belief.sync(to: need.hypotheses.map(\.id))
            rounds = before.rounds
        }
        return late.verdict
    }

    /// The clock. Returns true when a priming round ended without a flip (the prime colour
    /// is then assumed).
    mutating func tick(at time: Seconds, deadline: Seconds, presentationDelay: Seconds, config: LightCheckConfig) -> Bool {
        lastTickAssumedPresentation = false
        guard case .showing(var r) = state else { return false }
        let wasAssumed = r.presentationAssumed
        let result = r.tick(at: time, deadline: deadline, presentationDelay: presentationDelay, config: config)
        lastTickAssumedPresentation = r.presentationAssumed && !wasAssumed
        state = .showing(r)
        switch result {
        case .running:
            return false
        case .primedSilently:
            state = .idle
            return true
        case .silent(let window):
            state = .idle
            silence.ended(r, at: time, before: (belief, rounds))
            belief.update(flipped: false, likelihood: .make(window: window, config: config), role: r.role(of:),
                          weighDormant: config.evidenceByPlace)
            rounds += 1
            return false
        }
    }

    /// Ends the current round without evidence (the tangible started moving, the sensor is
    /// needed elsewhere).
    mutating func hold(_ reason: HoldReason) {
        if case .showing(let r) = state, r.phase == .probing { voidedRounds += 1 }
        state = .holding(reason)
    }

    mutating func begin(_ round: CheckRound) {
        lingering = []
        state = .showing(round)
    }

    /// Ends the current round without evidence and without counting it as voided (a flip
    /// that belongs to an earlier check).
    mutating func void() {
        if case .showing = state { state = .idle }
    }

    /// The overlay that first carries this round (or its newest staggered probe set);
    /// `onScreenSince` when that overlay was already reported presented (the patches did not
    /// change the picture).
    mutating func setFirstOverlay(_ id: UInt64, onScreenSince: Seconds?) {
        guard case .showing(var r) = state else { return }
        if r.firstOverlayID == nil {
            r.firstOverlayID = id
            if let t = onScreenSince { r.presentedAt = max(t, r.plannedAt) }
        }
        r.setSlotOverlay(id, onScreenSince: onScreenSince)
        state = .showing(r)
    }

    /// Turns a staggered round's next probe set to the probe colour when it is due
    /// (`CheckRound.nextProbeSetDue`).
    mutating func advanceStagger(at time: Seconds, presentationDelay: Seconds) {
        guard case .showing(var r) = state, r.nextProbeSetDue(at: time, presentationDelay: presentationDelay) else { return }
        r.startNextProbeSet(at: time)
        state = .showing(r)
    }

    /// The outcome, once the evidence (or the budget) decides it.
    func decision(at time: Seconds, config: LightCheckConfig) -> VerificationOutcome.Result? {
        let stationary = kind == .stationary
        let confirmAt = stationary ? config.stationaryConfirmPosterior : config.confirmPosterior
        let rejectAt = stationary ? config.stationaryRejectPosterior : config.rejectPosterior
        let hypotheses = need.hypotheses.filter { $0.sensorPosition.isFinite }
        if hypotheses.isEmpty { return .inconclusive }
        if case .holding(.nothingDrawable) = state, config.footprintPolicy == .strict { return .inconclusive }
        // Candidates closer than two minimum patches cannot be told apart: their mass counts
        // together, and if it wins the answer is inconclusive rather than a guess.
        let layout = CandidateLayout(hypotheses: hypotheses, footprint: need.footprint, shift: .zero,
                                     baseRadius: config.patchRadius, config: config)
        for cluster in layout.clusters {
            let mass = cluster.ids.reduce(0) { $0 + belief.weight(of: $1) }
            if mass >= confirmAt {
                guard cluster.ids.count == 1 else { return .inconclusive }
                // Not yet answered itself: the next round probes it (it holds the mass).
                if !stationary && !answered.contains(cluster.ids[0]) { continue }
                let winner = cluster.ids[0]
                /// One of its answers told it apart from `others` (it was probed, they were not).
                func toldApart(from others: Set<Int>) -> Bool {
                    others.isEmpty || answerSets.contains { $0.contains(winner) && $0.isDisjoint(with: others) }
                }
                // It inherited the weight of hypotheses that left with weight, or its answers
                // came on probe sets shared with newcomers, which weigh little for being new.
                if !stationary, config.toldApartFromDeparted, !toldApart(from: departedLive) { continue }
                if !stationary, config.toldApartFromNewcomers, !toldApart(from: newcomers.subtracting([winner])) { continue }
                return .confirmed(hypothesis: winner)
            }
        }
        if belief.none >= rejectAt { return .rejected }
        if rounds >= config.maxRounds || voidedRounds >= config.maxVoidedRounds
            || time - startedAt >= config.maxCheckDuration {
            return .inconclusive
        }
        return nil
    }
}
