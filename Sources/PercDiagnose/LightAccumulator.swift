// Per-tangible light-sensor figures: check outcomes, answers and misses to colour changes, latency, spontaneous flips.
import Histogram
import MTKTangibles

/// Watches what the display shows under a PERC's light sensor and what the sensor reports.
///
/// An *exposure* is a presented overlay that puts, under the sensor's known position (pose
/// confirmed or kept), a colour other than the one the sensor last reported. The first
/// matching notification within `answerWait` answers it (latency = arrival − presentation);
/// an unanswered exposure that stayed on screen `missHold` or longer is a *miss*. A light
/// change that neither answers an exposure nor follows check activity, a placement, a lift
/// or a link-up within `settle` is *spontaneous*; its rate is taken over the quiet time only
/// (link up, no such activity), so busy periods do not dilute it.
struct LightAccumulator: Sendable {
    private struct Exposure: Sendable {
        var start: Seconds
        var colour: LightColour
        var endedAt: Seconds?
        /// Notifications were lost while its answer could have been on the way.
        var lossSuspected = false
    }

    private(set) var figures = LightFigures()
    private var latency = LatencyFigures.histogram()
    private var pending: [Exposure] = []
    /// Unanswered exposures waiting for the next sequenced notification, which tells whether
    /// the answer may have been lost on the link (PERC GATT v1).
    private var unresolved: [Exposure] = []
    private var lastValue: Int?
    /// The patch colour under the sensor now (nil: no patch there), and this tangible's patches on screen.
    private var underSensor: LightColour?
    private var ownPatches: [Patch] = []
    /// Reports made while no patch covered the sensor: the background's colour by majority.
    private var backgroundVotes = [0, 0]
    private var explainedUntil = -Double.infinity
    private var quietCursor: Seconds?
    /// After lost notifications the reported light state may be stale until the next light
    /// notification: no exposures are counted and no flip is called spontaneous meanwhile.
    private var stateUncertain = false
    private let origin: Seconds

    init(origin: Seconds) { self.origin = origin }

    private var background: LightColour? {
        backgroundVotes[0] == backgroundVotes[1] ? nil : LightColour(sensorValue: backgroundVotes[1] > backgroundVotes[0] ? 1 : 0)
    }

    /// Counts quiet time up to `t` (only while the link is up).
    mutating func advance(to t: Seconds, linkUp: Bool) {
        if linkUp, let c = quietCursor { figures.quietHours += max(0, t - max(c, explainedUntil)) / 3600 }
        quietCursor = max(quietCursor ?? t, t)
    }

    /// Check activity, a placement, a lift or a link-up at `t`: light changes until `t + settle` are explained.
    mutating func activity(at t: Seconds, settings: DiagnoseSettings) {
        explainedUntil = max(explainedUntil, t + settings.settle)
    }

    /// A placement or lift at `t` (field notification): the sensor saw the surface change
    /// about one field-sensor delay before the notification, so recent flips are explained too.
    mutating func fieldChanged(at t: Seconds, settings: DiagnoseSettings) {
        activity(at: t, settings: settings)
        while let last = figures.flipTimes.last, last + origin >= t - settings.settle {
            figures.flipTimes.removeLast()
            figures.spontaneousFlips -= 1
        }
    }

    /// An overlay was presented at `t`; `sensor` is where the sensor is, if the pose is trusted.
    mutating func presented(_ overlay: Overlay, tangible: TangibleID, at t: Seconds, sensor: Vec2?, settings: DiagnoseSettings) {
        let own = overlay.patches.filter { $0.tangible == tangible }
        let colour = sensor.flatMap { s in overlay.patches.last { $0.center.distance(to: s) <= $0.radius }?.colour }
        if own != ownPatches || colour != underSensor { activity(at: t, settings: settings) }
        ownPatches = own
        guard sensor != nil, colour != underSensor else { underSensor = colour; return }
        for i in pending.indices where pending[i].endedAt == nil { pending[i].endedAt = t }
        let before = underSensor ?? background
        underSensor = colour
        guard let c = colour, c != before, let last = lastValue, c.sensorValue != last, !stateUncertain else { return }
        figures.exposures += 1
        pending.append(Exposure(start: t, colour: c))
    }

    mutating func light(_ e: SensorEvent, settings: DiagnoseSettings) {
        if underSensor == nil, (0...1).contains(e.value) { backgroundVotes[e.value] += 1 }
        let uncertain = stateUncertain
        stateUncertain = false
        guard let last = lastValue else { lastValue = e.value; return }
        guard e.value != last else { return }
        lastValue = e.value
        // The most recent stimulus of this colour is the one the sensor answers.
        if let i = pending.lastIndex(where: { $0.colour.sensorValue == e.value && e.arrival >= $0.start + 0.004
                                            && e.arrival <= $0.start + settings.answerWait }) {
            figures.answered += 1
            _ = latency.record(UInt64(((e.arrival - pending[i].start) * 1e6).rounded()))
            pending.remove(at: i)
            return
        }
        guard e.arrival > explainedUntil, !uncertain else { return }
        figures.spontaneousFlips += 1
        Self.keepRecent(&figures.flipTimes, e.arrival - origin)
    }

    /// Settles exposures whose answer time is over. With sequence numbers (`sequenced`) an
    /// unanswered one waits for the next notification: a gap then means the answer may have
    /// been lost on the link, which is not the sensor's miss.
    mutating func tick(now: Seconds, sequenced: Bool, settings: DiagnoseSettings) {
        while let i = pending.firstIndex(where: { now > $0.start + settings.answerWait }) {
            var x = pending.remove(at: i)
            x.endedAt = min(x.endedAt ?? now, x.start + settings.answerWait)
            if x.endedAt! - x.start < settings.missHold {
                figures.cutShort += 1
            } else if sequenced {
                unresolved.append(x)
            } else {
                miss(x)
            }
        }
    }

    /// A sequenced notification arrived at `arrival`; `lostSince` is the previous one's
    /// arrival when notifications were lost in between.
    mutating func sequenced(arrival: Seconds, lostSince: Seconds?, settings: DiagnoseSettings) {
        if let since = lostSince {
            stateUncertain = true
            for i in pending.indices where pending[i].start + settings.answerWait > since { pending[i].lossSuspected = true }
            for i in unresolved.indices where unresolved[i].start + settings.answerWait > since { unresolved[i].lossSuspected = true }
        }
        var waiting: [Exposure] = []
        for x in unresolved {
            if arrival <= x.start + settings.answerWait { waiting.append(x); continue }
            if x.lossSuspected { figures.lostOnLink += 1 } else { miss(x) }
        }
        unresolved = waiting
    }

    private mutating func miss(_ x: Exposure) {
        figures.misses += 1
        Self.keepRecent(&figures.missTimes, x.start - origin)
    }

    /// Time-line marks of a long live run: the most recent ones are kept.
    private static func keepRecent(_ times: inout [Double], _ t: Double) {
        times.append(t)
        if times.count > 4000 { times.removeFirst(2000) }
    }

    mutating func outcome(_ result: VerificationOutcome.Result, stationary: Bool) {
        figures.checks += 1
        if stationary { figures.stationaryChecks += 1 }
        switch result {
        case .confirmed: figures.confirmed += 1
        case .rejected: figures.rejected += 1
        case .inconclusive: figures.inconclusive += 1
        }
    }

    func report() -> LightFigures {
        var f = figures
        f.misses += unresolved.count
        let decided = f.answered + f.misses
        f.missRate = decided > 0 ? Double(f.misses) / Double(decided) : nil
        f.responseLatency = LatencyFigures(latency)
        f.flipsPerHour = f.quietHours > 0 ? Double(f.spontaneousFlips) / f.quietHours : nil
        return f
    }
}
