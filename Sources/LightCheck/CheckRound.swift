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
    /// The first overlay that carried this round's patches.
    var firstOverlayID: UInt64?
    /// When that overlay (or a later one) was reported presented.
    var presentedAt: Seconds?
    /// Whether `presentedAt` was assumed (no report came in time).
    var presentationAssumed = false
    /// Fixed when the presentation is known, so learning mid-round does not move it.
    var deadline: Seconds?

    /// The colour probes show now (decoy colour while priming or resetting).
    var probeColour: LightColour { phase == .probing ? colour.opposite : colour }

    /// After the reset overlay was presented: show the probes from `time`.
    mutating func startProbing(at time: Seconds) {
        phase = .probing
        plannedAt = time
        firstOverlayID = nil; presentedAt = nil; presentationAssumed = false; deadline = nil
    }

    func role(of id: Int) -> ExposureRole {
        if probed.contains(id) { return .probed }
        if drawn.contains(id) { return .decoyed }
        return .uncovered
    }

    /// Takes a presented report: the first one at or after this round's overlay starts it.
    mutating func presented(_ report: PresentedOverlay) {
        guard presentedAt == nil, let first = firstOverlayID, report.overlayID >= first else { return }
        presentedAt = max(report.from, plannedAt)
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
        /// presentation was reported (not assumed).
        case answer(window: Seconds, latency: Seconds?)
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
            return .answer(window: min(time, deadline ?? time) - start, latency: reported ? time - start : nil)
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
        guard let start = presentedAt else { return .running }
        if phase == .resetting {
            if time >= start { startProbing(at: time) }
            return .running
        }
        if deadline == nil { deadline = start + wait }
        guard let end = deadline, time >= end else { return .running }
        return phase == .priming ? .primedSilently : .silent(window: end - start)
    }
}

/// The last round of a check or search that ended silent, with the evidence from before its
/// silence counted (`Evidence`: whatever the owner weighs with). The sensor's clock can show
/// that a flip answered that round late (`LightCheckConfig.sensorClock`); its silence is then
/// taken back.
struct SilentRoundMemory<Evidence: Sendable>: Sendable {
    private var last: (start: Seconds, reported: Bool, end: Seconds, before: Evidence)?

    /// `round` ended silent at `end`; `before` is the evidence before its silence counted.
    mutating func ended(_ round: CheckRound, at end: Seconds, before: Evidence) {
        last = round.presentedAt.map { ($0, !round.presentationAssumed, end, before) }
    }

    /// Any flip ends the memory (the round before it is no longer the last silent one) and is
    /// read against it, for when it answered no round showing: a late answer to the remembered
    /// round when the sensor's clock puts the change while that round's patches showed (from
    /// its presentation to its deadline), with the evidence to go back to; else a change of
    /// the sensor's own. The latency runs from that round's reported presentation.
    mutating func take(flipAt time: Seconds, changedAt: Seconds?,
                       config: LightCheckConfig) -> (verdict: VerificationCheck.FlipVerdict, before: Evidence?) {
        defer { last = nil }
        guard let changedAt, let r = last, changedAt >= r.start + config.latency.minSensorResponse,
              changedAt <= r.end else { return (.spontaneous, nil) }
        return (.late(latency: r.reported ? time - r.start : nil), r.before)
    }
}
