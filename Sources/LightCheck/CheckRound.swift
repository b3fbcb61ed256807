// One showing of probes and decoys for one tangible, from planning to answer or deadline.
import MTKTangibles

/// A round shows the opposite of the sensor's reported colour at the probed candidates and
/// the reported colour (decoys) at the other drawn ones, then waits for one flip or the
/// deadline. A priming round (sensor state not known yet) shows one colour everywhere.
///
/// A sensor answers a *change* of what it sees: a probe drawn where the same colour already
/// shows (a missed probe repeated, a spot the sensor saw while it flipped on its own) would
/// never be answered. Such a round first shows decoys everywhere until that overlay is
/// presented (`resetting`), then the probes.
struct CheckRound: Hashable, Sendable {
    enum Phase: Hashable, Sendable { case priming, resetting, probing }

    /// The colour the sensor reported when the round began; decoys show it.
    var colour: LightColour
    var phase: Phase
    var isPriming: Bool { phase == .priming }
    /// Hypothesis ids under probes, and under any patch of this round.
    var probed: Set<Int>
    var drawn: Set<Int>
    var plannedAt: Seconds
    /// The hypotheses live when the round began (the others joined during it), and the
    /// largest patch radius it has drawn (a layout shrinks when a hypothesis joins close by).
    var offered: Set<Int> = []
    var largestRadius: Double = 0
    /// The first overlay that carried this round's patches.
    var firstOverlayID: UInt64?
    /// When that overlay (or a later one) was reported presented.
    var presentedAt: Seconds?
    /// Whether `presentedAt` was assumed (no report came in time).
    var presentationAssumed = false
    /// Fixed when the presentation is known, so learning mid-round does not move it.
    var deadline: Seconds?
    /// The later probes of a staggered round (`LightCheckConfig.staggeredProbes`); nil for
    /// a round whose probes all show at once.
    var stagger: Stagger?

    /// A staggered round's probe sets after the first: each turns from decoy to probe colour
    /// once `span` (the sensor's response span) has passed since the one before showed.
    struct Stagger: Hashable, Sendable {
        struct Slot: Hashable, Sendable {
            var ids: Set<Int>
            var plannedAt: Seconds?
            var firstOverlayID: UInt64?
            var presentedAt: Seconds?
            var presentationAssumed = false
        }
        /// The round's first probe set (shown from its presentation).
        var lead: Set<Int>
        var later: [Slot]
        /// By the sensor's clock, when after a probe shows its answer can change the sensor.
        var span: ClosedRange<Seconds>
        var spacing: Seconds { span.upperBound - span.lowerBound }
        var pending: Bool { later.contains { $0.presentedAt == nil } }
    }

    /// The colour probes show now (decoy colour while priming or resetting).
    var probeColour: LightColour { phase == .probing ? colour.opposite : colour }

    /// After the reset overlay was presented: show the probes from `time`.
    mutating func startProbing(at time: Seconds) {
        phase = .probing
        plannedAt = time
        firstOverlayID = nil; presentedAt = nil; presentationAssumed = false; deadline = nil
    }

    /// Hypotheses that joined beside `beside` take its role: drawn, probed when `probed`, and
    /// in a staggered round the probe set `beside` belongs to (`newcomersTakeProbes`; without
    /// `intoSets`, as before it, the sets stay as they were).
    mutating func join(_ ids: [Int], probed: Bool, beside: [Int], intoSets: Bool) {
        drawn.formUnion(ids)
        if probed { self.probed.formUnion(ids) }
        guard intoSets, var s = stagger, !beside.isEmpty else { return }
        let with = Set(beside)
        if !s.lead.isDisjoint(with: with) { s.lead.formUnion(ids) }
        for i in s.later.indices where !s.later[i].ids.isDisjoint(with: with) { s.later[i].ids.formUnion(ids) }
        stagger = s
    }

    func role(of id: Int) -> ExposureRole {
        if probed.contains(id) { return .probed }
        if drawn.contains(id) { return .decoyed }
        return .uncovered
    }

    /// Takes a presented report: the first one at or after this round's overlay starts it
    /// (and a staggered probe set's, that set).
    mutating func presented(_ report: PresentedOverlay) {
        if presentedAt == nil, let first = firstOverlayID, report.overlayID >= first {
            presentedAt = max(report.from, plannedAt)
        }
        guard var s = stagger else { return }
        for i in s.later.indices where s.later[i].presentedAt == nil {
            if let first = s.later[i].firstOverlayID, let planned = s.later[i].plannedAt, report.overlayID >= first {
                s.later[i].presentedAt = max(report.from, planned)
            }
        }
        stagger = s
    }

    /// The next staggered probe set is due: the one before has shown for the sensor's
    /// response span by the time an overlay planned now shows (`presentationDelay` ahead).
    func nextProbeSetDue(at time: Seconds, presentationDelay: Seconds) -> Bool {
        guard phase == .probing, let s = stagger, let k = s.later.firstIndex(where: { $0.plannedAt == nil }) else { return false }
        guard let before = k == 0 ? presentedAt : s.later[k - 1].presentedAt else { return false }
        return time + presentationDelay >= before + s.spacing
    }

    /// Turns the next staggered probe set to the probe colour from `time`.
    mutating func startNextProbeSet(at time: Seconds) {
        guard var s = stagger, let k = s.later.firstIndex(where: { $0.plannedAt == nil }) else { return }
        s.later[k].plannedAt = time
        probed.formUnion(s.later[k].ids)
        stagger = s
    }

    /// The first overlay that carries the newest started probe set, when not known yet.
    mutating func setSlotOverlay(_ id: UInt64, onScreenSince: Seconds?) {
        guard var s = stagger, let k = s.later.lastIndex(where: { $0.plannedAt != nil }), s.later[k].firstOverlayID == nil else { return }
        s.later[k].firstOverlayID = id
        if let t = onScreenSince, let planned = s.later[k].plannedAt { s.later[k].presentedAt = max(t, planned) }
        stagger = s
    }

    /// The probe sets shown so far with when each showed (the first set's is the round's).
    private func shownSets() -> [(ids: Set<Int>, start: Seconds, reported: Bool)] {
        guard let s = stagger, let start = presentedAt else { return [] }
        return [(s.lead, start, !presentationAssumed)]
            + s.later.compactMap { slot in slot.presentedAt.map { (slot.ids, $0, !slot.presentationAssumed) } }
    }
}

extension CheckRound {
    /// What a flip during this round means.
    enum FlipMeaning: Hashable, Sendable {
        /// The sensor's state became known while priming.
        case primed
        /// No probe was on screen long enough: not an answer.
        case unexplained
        /// The sensor changed (by its own clock) before this round's patches could be seen:
        /// an answer to an earlier round that arrived late, or a change of its own.
        case beforeRound
        /// An answer; `window` is how long the probes were up, `latency` is set when the
        /// presentation was reported (not assumed). `probed`: the probes it answered, when
        /// not all of the round's (a staggered round); `response`: presentation → change by
        /// the sensor's clock, when that is known and the presentation was reported.
        case answer(window: Seconds, latency: Seconds?, probed: Set<Int>? = nil, response: Seconds? = nil)

        /// No patch of this round explains the flip (`SilentRoundMemory.take`).
        var answersNoRound: Bool {
            switch self {
            case .unexplained, .beforeRound: true
            case .primed, .answer: false
            }
        }
    }

    /// `changedAt`: when the sensor changed, from its own clock (PERC GATT v1 device time),
    /// when known.
    func meaning(ofFlipAt time: Seconds, changedAt: Seconds? = nil, config: LightCheckConfig) -> FlipMeaning {
        switch phase {
        case .priming: return .primed
        case .resetting: return .unexplained
        case .probing:
            let start = presentedAt ?? (plannedAt + config.assumedPresentationDelay)
            // The sensor's clock, when known, says more than the arrival: a change before this
            // round could be seen may be a late answer to the round before.
            if let changedAt, changedAt < start + config.latency.minSensorResponse { return .beforeRound }
            guard time >= start + config.latency.minResponseLatency else { return .unexplained }
            let reported = presentedAt != nil && !presentationAssumed
            guard stagger != nil, let changedAt else {
                return .answer(window: min(time, deadline ?? time) - start, latency: reported ? time - start : nil,
                               response: reported ? changedAt.map { $0 - start } : nil)
            }
            // A staggered round: the probe sets whose response span holds the change are what
            // the sensor answered (all shown so far when none does, as an unstaggered round).
            let sets = shownSets()
            let fitting = sets.filter { set in stagger!.span.contains(changedAt - set.start) }
            let answered = fitting.isEmpty ? sets : fitting
            let first = answered.map(\.start).min() ?? start
            let one = answered.count == 1 ? answered[0] : nil
            return .answer(window: min(time, deadline ?? time) - first,
                           latency: one.flatMap { $0.reported ? time - $0.start : nil },
                           probed: answered.reduce(into: Set<Int>()) { $0.formUnion($1.ids) },
                           response: one.flatMap { $0.reported ? changedAt - $0.start : nil })
        }
    }

    /// What the clock did to this round.
    enum TickResult: Hashable, Sendable {
        case running
        /// A priming round ended without a flip: assume the prime colour.
        case primedSilently
        /// A probing round reached its deadline without a flip; `window` as in `FlipMeaning`.
        case silent(window: Seconds)
    }

    /// Assumes a presentation that was never reported, fixes the deadline once the
    /// presentation is known, moves a presented reset on to probing, and fires the deadline.
    mutating func tick(at time: Seconds, deadline wait: Seconds, presentationDelay: Seconds, config: LightCheckConfig) -> TickResult {
        if presentedAt == nil, firstOverlayID != nil,
           !config.expectPresentedReports || time >= plannedAt + config.presentationTimeout {
            presentedAt = plannedAt + presentationDelay
            presentationAssumed = true
        }
        guard let shown = presentedAt else { return .running }
        if phase == .resetting {
            if time >= shown { startProbing(at: time) }
            return .running
        }
        var start = shown
        if var s = stagger {
            // Each staggered probe set's presentation too; the deadline runs from the last's.
            for i in s.later.indices where s.later[i].presentedAt == nil && s.later[i].firstOverlayID != nil {
                if let planned = s.later[i].plannedAt, !config.expectPresentedReports || time >= planned + config.presentationTimeout {
                    s.later[i].presentedAt = planned + presentationDelay
                    s.later[i].presentationAssumed = true
                }
            }
            stagger = s
            guard !s.pending, let last = s.later.last?.presentedAt else { return .running }
            start = max(start, last)
        }
        if deadline == nil { deadline = start + wait }
        guard let end = deadline, time >= end else { return .running }
        return phase == .priming ? .primedSilently : .silent(window: end - shown)
    }
}

/// The last round of a check or search that ended silent, with the evidence from before its
/// silence counted (`Evidence`: whatever the owner weighs with). The sensor's clock can show
/// that a flip answered that round late (`LightCheckConfig.sensorClock`); its silence is then
/// taken back.
struct SilentRoundMemory<Evidence: Sendable>: Sendable {
    private var last: (start: Seconds, reported: Bool, staggered: Bool, end: Seconds, before: Evidence)?

    /// `round` ended silent at `end`; `before` is the evidence before its silence counted.
    mutating func ended(_ round: CheckRound, at end: Seconds, before: Evidence) {
        last = round.presentedAt.map { ($0, !round.presentationAssumed, round.stagger != nil, end, before) }
    }

    /// Any flip ends the memory (the round before it is no longer the last silent one) and is
    /// read against it, for when it answered no round showing: a late answer to the remembered
    /// round when the sensor's clock puts the change while that round's patches showed (from
    /// its presentation to its deadline), with the evidence to go back to; else a change of
    /// the sensor's own. The latency and the response run from that round's reported
    /// presentation (no response for a staggered round: which of its probes it saw is not known).
    ///
    /// `answersNoRound`: no round showing can explain the flip (none runs, or it is resetting,
    /// or its patches could not have been seen yet). The remembered round's patches then
    /// showed past its deadline, until the next overlay replaced them, and under
    /// `lateAnswersPastDeadline` a change up to `latency.maxSensorResponse` past the deadline
    /// is still its late answer.
    mutating func take(flipAt time: Seconds, changedAt: Seconds?, answersNoRound: Bool,
                       config: LightCheckConfig) -> (verdict: VerificationCheck.FlipVerdict, before: Evidence?) {
        defer { last = nil }
        let past = answersNoRound && config.lateAnswersPastDeadline ? config.latency.maxSensorResponse : 0
        guard let changedAt, let r = last, changedAt >= r.start + config.latency.minSensorResponse,
              changedAt <= r.end + past else { return (.spontaneous, nil) }
        return (.late(latency: r.reported && !r.staggered ? time - r.start : nil,
                      response: r.reported && !r.staggered ? changedAt - r.start : nil), r.before)
    }
}
