// Staggered probes (`LightCheckConfig.staggeredProbes`): a round turns its likeliest decoys to
// the probe colour one at a time, and the sensor's own clock tells which of them it answered.
import Foundation
import Testing
import MTKTangibles
@testable import LightCheck

@Suite struct StaggeredProbesTests {
    /// The PERC's clock read 5 s when ours read 0.
    static let boot: Seconds = 5

    /// A report of the sensor that changed at `changed` (our clock) and arrived at `arrival`.
    static func event(_ kind: SensorKind, _ value: Int, changed: Seconds, arrival: Seconds) -> SensorEvent {
        SensorEvent(tangible: 1, kind: kind, value: value, deviceTime: UInt32((boot + changed) * 1_000_000), arrival: arrival)
    }

    /// Two candidates 100 mm apart and a black sensor whose clock is known from `heartbeats`
    /// reports that came without delay (so the fastest delay seen is small and well bounded).
    /// The first round is presented at once. Returns the driver, the candidate its probe shows
    /// first and the other one.
    static func twoCandidates(_ config: LightCheckConfig = LightCheckConfig(), heartbeats: Int = 40,
                              clock: Bool = true) -> (driver: HandDriver, lead: Int, next: Int) {
        var d = HandDriver(config: config)
        d.needs = [HandDriver.need(at: [Vec2(100, 100), Vec2(200, 100)])]
        let beats = (0..<heartbeats).map { i in event(.heartbeat, 0, changed: -1 + Double(i) * 0.02, arrival: -1 + Double(i) * 0.02) }
        let light = clock ? event(.light, 0, changed: 0, arrival: 0)
            : SensorEvent(tangible: 1, kind: .light, value: 0, arrival: 0)
        d.step(at: 0, events: (clock ? beats : []) + [light])
        _ = d.presentNow()
        let probe = d.scheduler.overlay.patches.first { $0.purpose == .probe }!
        let lead = probe.center.distance(to: Vec2(100, 100)) < 1 ? 0 : 1
        return (d, lead, 1 - lead)
    }

    static func colour(at candidate: Int, _ d: HandDriver) -> LightColour? {
        let place = candidate == 0 ? Vec2(100, 100) : Vec2(200, 100)
        return d.scheduler.overlay.patches.first { $0.center.distance(to: place) < 1 }?.colour
    }

    /// Steps frame by frame, presenting each new overlay at once, until the second candidate's
    /// patch shows the probe colour (white); returns when it was presented.
    static func untilTheNextProbeShows(_ d: inout HandDriver, next: Int) -> Seconds? {
        for _ in 0..<40 {
            d.step()
            if colour(at: next, d) == .white { _ = d.presentNow(); return d.time }
        }
        return nil
    }

    @Test func theNextCandidateIsProbedBeforeTheDeadline() throws {
        var (d, lead, next) = Self.twoCandidates()
        #expect(Self.colour(at: lead, d) == .white)
        #expect(Self.colour(at: next, d) == .black)
        let deadline = d.scheduler.deadline(for: 1)
        let shown = try #require(Self.untilTheNextProbeShows(&d, next: next))
        // Planned one presentation delay (1/60 s until one is learned) before the sensor's
        // response span (a prior of 4 frames at 60 Hz + 5 ms, from 10 ms, and the clock's
        // bound) has passed, and well before the silent round would end.
        #expect(shown + 1.0 / 60 >= 1.0 / 15 + 0.005 - 0.01)
        #expect(shown < deadline)
        #expect(d.scheduler.diagnostics.silentRounds == 0)
        // The lead keeps its probe colour: a sensor under it has seen the change already.
        #expect(Self.colour(at: lead, d) == .white)
    }

    /// The sensor under the second candidate changes 30 ms after its probe showed: one answer
    /// confirms it, without a silent round.
    @Test func anAnswerToTheLaterProbeConfirmsItsCandidate() throws {
        var (d, _, next) = Self.twoCandidates()
        let shown = try #require(Self.untilTheNextProbeShows(&d, next: next))
        d.step(at: shown + 0.04, events: [Self.event(.light, 1, changed: shown + 0.03, arrival: shown + 0.04)])
        d.step()
        #expect(d.outcomes.map(\.result) == [.confirmed(hypothesis: next)])
        #expect(d.scheduler.diagnostics.answers == 1)
        #expect(d.scheduler.diagnostics.silentRounds == 0)
        // Its response (presentation of that probe → change) is learned.
        #expect(d.scheduler.latencyModel(for: 1).responses.count == 1)
        #expect(abs(d.scheduler.latencyModel(for: 1).responses[0] - 0.03) < 1e-5)
    }

    /// A change 50 ms after the first probe showed, reported after the second one showed:
    /// by the sensor's clock it answered the first probe only.
    @Test func aLateReportOfTheFirstProbesAnswerConfirmsTheFirst() throws {
        var (d, lead, next) = Self.twoCandidates()
        let shown = try #require(Self.untilTheNextProbeShows(&d, next: next))
        d.step(at: shown + 0.02, events: [Self.event(.light, 1, changed: 0.05, arrival: shown + 0.02)])
        d.step()
        #expect(d.outcomes.map(\.result) == [.confirmed(hypothesis: lead)])
    }

    /// A change that fits both probes' response spans answers both: nothing is confirmed, and
    /// the next round tells them apart.
    @Test func aChangeThatFitsBothProbesAnswersBoth() throws {
        var (d, _, next) = Self.twoCandidates()
        let shown = try #require(Self.untilTheNextProbeShows(&d, next: next))
        let changed = shown + 0.0105  // inside the first probe's span too (it ends after 4 frames + 5 ms + the clock's bound)
        d.step(at: changed + 0.01, events: [Self.event(.light, 1, changed: changed, arrival: changed + 0.01)])
        d.step()
        #expect(d.outcomes.isEmpty)
        #expect(d.scheduler.diagnostics.answers == 1)
        // Neither response is learned: which probe it answered is not known.
        #expect(d.scheduler.latencyModel(for: 1).responses.isEmpty)
    }

    /// A staggered round that ended silent, answered late: the silence is taken back as for
    /// any round, but neither a latency nor a response is learned from it (which of its
    /// probes the sensor saw is not known).
    @Test func aLateAnswerToAStaggeredRoundTeachesNothing() throws {
        var (d, _, next) = Self.twoCandidates()
        _ = try #require(Self.untilTheNextProbeShows(&d, next: next))
        while d.scheduler.diagnostics.silentRounds == 0, d.time < 1 { d.step(); _ = d.presentNow() }
        #expect(d.scheduler.diagnostics.silentRounds == 1)
        let arrival = d.time + 0.01
        d.step(at: arrival, events: [Self.event(.light, 1, changed: d.time - 0.03, arrival: arrival)])
        #expect(d.scheduler.diagnostics.lateAnswers == 1)
        #expect(d.scheduler.latencyModel(for: 1).samples.isEmpty)
        #expect(d.scheduler.latencyModel(for: 1).responses.isEmpty)
        #expect(d.outcomes.isEmpty)
    }

    /// A sensor without a clock (the MTK serial profile) is not staggered: the decoy stays a
    /// decoy until the deadline. One whose clock is known from a single notification is
    /// staggered later (the fastest delay seen may itself have been long).
    @Test func notStaggeredWithoutAClockAndLaterWithAPoorOne() throws {
        var (d, _, next) = Self.twoCandidates(clock: false)
        let deadline = d.scheduler.deadline(for: 1)
        while d.time + HandDriver.frame < deadline - 0.005 {
            d.step()
            #expect(Self.colour(at: next, d) != .white, "at \(d.time)")
        }
        var (good, _, goodNext) = Self.twoCandidates(heartbeats: 40)
        var (poor, _, poorNext) = Self.twoCandidates(heartbeats: 0)
        let early = try #require(Self.untilTheNextProbeShows(&good, next: goodNext))
        let late = try #require(Self.untilTheNextProbeShows(&poor, next: poorNext))
        #expect(late >= early + 0.02)
        // Off, or asked to learn responses first: no staggering either.
        var off = LightCheckConfig(); off.staggeredProbes = false
        var learnFirst = LightCheckConfig(); learnFirst.staggerAfterResponses = 3
        for config in [off, learnFirst] {
            var (d, _, next) = Self.twoCandidates(config)
            let deadline = d.scheduler.deadline(for: 1)
            while d.time + HandDriver.frame < deadline - 0.005 {
                d.step()
                #expect(Self.colour(at: next, d) != .white)
            }
        }
    }

    /// The response span: the prior until enough is learned, widened by a slow sensor, never
    /// narrowed by a quick one.
    @Test func theResponseSpanOnlyWidens() {
        var s = LatencyModel.Settings()
        s.setTable(refreshHz: 60, bleInterval: 0.03)
        var m = LatencyModel()
        #expect(m.responseSpan(s, minimum: 1) == nil)
        #expect(m.responseSpan(s, minimum: 0) == s.minSensorResponse...s.maxSensorResponse)
        for r in [0.017, 0.020, 0.033] { m.record(response: r, settings: s) }
        #expect(m.responseSpan(s, minimum: 3) == s.minSensorResponse...s.maxSensorResponse)
        m.record(response: 0.1, settings: s)
        let wide = m.responseSpan(s, minimum: 3)!
        #expect(abs(wide.upperBound - (0.1 * s.slack + s.margin)) < 1e-12)
        // Bad values are not learned; the window bounds what is kept.
        m.record(response: -.infinity, settings: s); m.record(response: .nan, settings: s); m.record(response: 9, settings: s)
        #expect(m.responses.count == 4)
        for _ in 0..<100 { m.record(response: 0.02, settings: s) }
        #expect(m.responses.count == s.window)
        // A faster display: 4 frames at 120 Hz.
        s.setTable(refreshHz: 120, bleInterval: 0.0075)
        #expect(abs(s.maxSensorResponse - (4.0 / 120 + 0.005)) < 1e-12)
        #expect(s.bleInterval == 0.0075)
    }

    /// A model saved before responses were learned decodes with none, and one without any
    /// encodes as before.
    @Test func latencyModelsOfBeforeStillDecode() throws {
        let old = try JSONDecoder().decode(LatencyModel.self, from: Data(#"{"samples":[0.05,0.06]}"#.utf8))
        #expect(old.samples == [0.05, 0.06] && old.responses.isEmpty)
        #expect(String(decoding: try JSONEncoder().encode(old), as: UTF8.self) == #"{"samples":[0.05,0.06]}"#)
        let new = LatencyModel(samples: [0.05], responses: [0.03])
        #expect(try JSONDecoder().decode(LatencyModel.self, from: JSONEncoder().encode(new)) == new)
    }

    /// How late the link's fastest notification itself may have been: shrinks as more are seen,
    /// up to the 64–128 the fastest is looked for among (it moves with a drifting clock), and
    /// never grows back above the bound of 64 once they were seen.
    @Test func theClockBoundShrinksWithNotifications() {
        var c = DeviceClockLatency()
        #expect(c.fastestDelayBound(spread: 0.035) == .infinity)
        var last = Double.infinity
        let ofWindow = 0.035 * (1 - pow(0.001, 1.0 / Double(DeviceClockLatency.window)))
        for i in 0..<200 {
            _ = c.observe(deviceTime: UInt32(i * 10_000), arrival: Double(i) * 0.01 + 0.002)
            let b = c.fastestDelayBound(spread: 0.035)
            #expect(b > 0)
            if i < 2 * DeviceClockLatency.window - 1 { #expect(b < last, "after \(i + 1)") }
            if i >= DeviceClockLatency.window - 1 { #expect(b <= ofWindow + 1e-12, "after \(i + 1)") }
            last = b
        }
        #expect(ofWindow < 0.004)
        #expect(c.observed == DeviceClockLatency.window + 200 % DeviceClockLatency.window)
    }

    /// Settings: recordings of before read staggering and the turn rule as off; bad values
    /// are refused with the key's name.
    @Test func settingsDecodeAndAreChecked() throws {
        let before = try JSONDecoder().decode(LightCheckConfig.self, from: Data("{}".utf8))
        #expect(!before.staggeredProbes && before.reserveAfterWaiting == 0)
        #expect(LightCheckConfig().staggeredProbes && LightCheckConfig().reserveAfterWaiting == 0.3)
        for (json, key) in [(#"{"staggerSlots":0}"#, "staggerSlots"), (#"{"staggerAfterResponses":41}"#, "staggerAfterResponses"),
                            (#"{"reserveAfterWaiting":-1}"#, "reserveAfterWaiting"),
                            (#"{"latency":{"maxSensorResponse":0.001}}"#, "maxSensorResponse"),
                            (#"{"latency":{"bleInterval":2}}"#, "bleInterval")] {
            do {
                _ = try JSONDecoder().decode(LightCheckConfig.self, from: Data(json.utf8))
                Issue.record("accepted \(json)")
            } catch DecodingError.dataCorrupted(let context) {
                #expect(context.debugDescription.contains(key), "\(context.debugDescription)")
            }
        }
    }
}
