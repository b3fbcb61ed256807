// A flip is read by when the sensor changed on its own clock (PERC GATT v1 device time), so a
// late answer to a silent round is not taken for the next round's answer.
import Testing
import MTKTangibles
@testable import LightCheck

@Suite struct SensorClockTests {
    /// The PERC's clock read 5 s when ours read 0.
    static let boot: Seconds = 5

    /// A light report of a sensor that changed at `changed` (our clock) and arrived at `arrival`.
    static func light(_ value: Int, changed: Seconds, arrival: Seconds, boot: Seconds = boot) -> SensorEvent {
        SensorEvent(tangible: 1, kind: .light, value: value, deviceTime: UInt32((boot + changed) * 1_000_000), arrival: arrival)
    }

    /// Presents every overlay, a frame apart, until a round's probe shows (a reset may come first).
    static func presentUntilAProbeShows(_ d: inout HandDriver) {
        for _ in 0..<4 where !d.scheduler.overlay.patches.contains(where: { $0.purpose == .probe }) {
            d.step(); _ = d.presentNow()
        }
    }

    /// Two candidates far apart and a black sensor whose first report came without delay (so
    /// its clock is known exactly). The first round is presented at 0 and stays silent to its
    /// deadline; the next round's probe is then presented. Returns the driver and when the
    /// first round ended.
    func secondRoundShowing(_ config: LightCheckConfig) -> (driver: HandDriver, firstEnded: Seconds) {
        // Rounds whose probes show at once (staggered ones: StaggeredProbesTests).
        var config = config
        config.staggeredProbes = false
        var d = HandDriver(config: config)
        d.needs = [HandDriver.need(at: [Vec2(100, 100), Vec2(200, 100)])]
        d.step(at: 0, events: [Self.light(0, changed: 0, arrival: 0)])
        _ = d.presentNow()
        let deadline = d.scheduler.deadline(for: 1)
        d.step(at: deadline)
        #expect(d.scheduler.diagnostics.silentRounds == 1)
        Self.presentUntilAProbeShows(&d)
        d.step(); _ = d.presentNow()
        #expect(d.scheduler.overlay.patches.contains { $0.purpose == .probe })
        return (d, deadline)
    }

    /// `secondRoundShowing`, then a report 20 ms into the second round of a change at `changed`
    /// (our clock; nil: 1 ms past the first round's deadline).
    func changeReported(_ config: LightCheckConfig, changed: Seconds? = nil) -> (driver: HandDriver, firstEnded: Seconds, arrival: Seconds) {
        var (d, ended) = secondRoundShowing(config)
        let arrival = d.time + 0.02
        d.step(at: arrival, events: [Self.light(1, changed: changed ?? ended + 0.001, arrival: arrival)])
        return (d, ended, arrival)
    }

    @Test func aLateAnswerToASilentRoundIsNotTheNextRoundsAnswer() {
        // The sensor answered the first round's probe 60 ms after it showed; the report
        // arrives 20 ms into the second round.
        var (d, ended, arrival) = changeReported(LightCheckConfig(), changed: 0.06)
        #expect(ended < d.time)
        #expect(d.outcomes.isEmpty)
        #expect(d.scheduler.diagnostics.answers == 0)
        #expect(d.scheduler.diagnostics.lateAnswers == 1)
        #expect(d.scheduler.diagnostics.spontaneousFlips[1] == nil)
        // Its latency, from the first round's presentation, teaches the deadline.
        #expect(d.scheduler.latencyModel(for: 1).samples == [arrival])
        // The next round starts from the new colour: its probes are black.
        d.step(); _ = d.presentNow()
        #expect(d.scheduler.overlay.patches.filter { $0.purpose == .probe }.allSatisfy { $0.colour == .black })
    }

    /// A change just past the silent round's deadline, before the next round's patches can
    /// have been seen, answers the silent round's patches (they showed until the next overlay
    /// replaced them): a late answer, whose latency teaches a longer deadline
    /// (`lateAnswersPastDeadline`). With the setting off, or further past the deadline than
    /// `latency.maxSensorResponse`, it is a change of the sensor's own and teaches nothing.
    @Test func aChangeJustPastTheSilentRoundsDeadlineIsItsLateAnswer() {
        let (d, ended, arrival) = changeReported(LightCheckConfig())
        #expect(d.scheduler.diagnostics.lateAnswers == 1)
        #expect(d.scheduler.diagnostics.answers == 0)
        #expect(d.scheduler.diagnostics.spontaneousFlips[1] == nil)
        #expect(d.scheduler.latencyModel(for: 1).samples == [arrival])
        #expect(d.scheduler.deadline(for: 1) > ended)

        var off = LightCheckConfig()
        off.lateAnswersPastDeadline = false
        var short = LightCheckConfig()
        short.latency.maxSensorResponse = 0.0005
        for config in [off, short] {
            let e = changeReported(config).driver
            #expect(e.scheduler.diagnostics.lateAnswers == 0)
            #expect(e.scheduler.diagnostics.answers == 0)
            #expect(e.scheduler.diagnostics.spontaneousFlips[1] == 1)
            #expect(e.scheduler.latencyModel(for: 1).samples.isEmpty)
        }
    }

    /// A late answer that voids the showing round keeps the sensor quiet: it may still be
    /// following the voided round's patches, and the next round, started from the new colour,
    /// would read that change as its own answer (`quietAfterVoidedRound`).
    @Test func aChangeAfterALateAnswerIsNotTheNextRoundsAnswer() {
        for quiet in [true, false] {
            var config = LightCheckConfig()
            config.quietAfterVoidedRound = quiet
            var d = changeReported(config, changed: 0.06).driver
            #expect(d.scheduler.diagnostics.lateAnswers == 1)
            Self.presentUntilAProbeShows(&d)
            _ = d.presentNow()
            #expect(d.scheduler.overlay.patches.contains { $0.purpose == .probe })
            let shown = d.time
            d.step(at: shown + 0.04, events: [Self.light(0, changed: shown + 0.03, arrival: shown + 0.04)])
            #expect(d.scheduler.diagnostics.answers == (quiet ? 0 : 1), "quietAfterVoidedRound \(quiet)")
            #expect(d.scheduler.diagnostics.spontaneousFlips[1] == (quiet ? 1 : nil), "quietAfterVoidedRound \(quiet)")
        }
    }

    /// The same report without the sensor's clock is read as the second round's answer: what
    /// the rule prevents.
    @Test func withoutTheClockTheSameReportIsReadAsAnAnswer() {
        var config = LightCheckConfig()
        config.sensorClock = false
        let d = changeReported(config, changed: 0.06).driver
        #expect(d.scheduler.diagnostics.answers == 1)
        #expect(d.scheduler.diagnostics.lateAnswers == 0)
    }

    @Test func anAnswerToTheShowingRoundIsStillAnAnswer() {
        var (d, _) = secondRoundShowing(LightCheckConfig())
        let shown = d.time
        d.step(at: shown + 0.05, events: [Self.light(1, changed: shown + 0.03, arrival: shown + 0.05)])
        #expect(d.scheduler.diagnostics.answers == 1)
        #expect(d.scheduler.diagnostics.lateAnswers == 0)
    }

    /// A sensor with a clock gets the shorter prior deadline; one without (the MTK serial
    /// profile) or with the rule off keeps the longer one. A lost link forgets the clock (a
    /// PERC that reconnects may have restarted it), and a restarted clock does not make the
    /// next answer look early.
    @Test func theClockPriorAppliesOnlyToASensorWithAClock() {
        let settings = LightCheckConfig().latency
        #expect(settings.clockPriorDeadline < settings.priorDeadline)
        var d = HandDriver()
        d.needs = [HandDriver.need(at: [Vec2(100, 100)])]
        d.step(at: 0, light: [(1, 0)])
        #expect(d.scheduler.deadline(for: 1) == settings.priorDeadline)
        d.step(events: [Self.light(0, changed: d.time, arrival: d.time)])
        #expect(d.scheduler.deadline(for: 1) == settings.clockPriorDeadline)
        d.step(events: [SensorEvent(tangible: 1, kind: .link, value: 0, arrival: d.time)])
        #expect(d.scheduler.deadline(for: 1) == settings.priorDeadline)

        // Back with its clock restarted near 0: the next round's answer is an answer.
        let back = d.time + HandDriver.frame
        let restarted = 0.001 - back
        d.step(at: back, events: [SensorEvent(tangible: 1, kind: .link, value: 1, arrival: back),
                                  Self.light(0, changed: back, arrival: back, boot: restarted)])
        Self.presentUntilAProbeShows(&d)
        _ = d.presentNow()
        let shown = d.time
        d.step(at: shown + 0.04, events: [Self.light(1, changed: shown + 0.03, arrival: shown + 0.04, boot: restarted)])
        #expect(d.outcomes.map(\.result) == [.confirmed(hypothesis: 0)])
        #expect(d.scheduler.diagnostics.lateAnswers == 0)

        var off = LightCheckConfig()
        off.sensorClock = false
        var e = HandDriver(config: off)
        e.needs = d.needs
        e.step(at: 0, events: [Self.light(0, changed: 0, arrival: 0)])
        #expect(e.scheduler.deadline(for: 1) == settings.priorDeadline)
    }
}
