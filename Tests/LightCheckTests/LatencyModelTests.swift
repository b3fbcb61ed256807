// The per-tangible latency model: prior first, then the deadlines the observed answers call for.
import Testing
@testable import LightCheck

@Suite struct LatencyModelTests {
    let s = LatencyModel.Settings()

    @Test func priorWithoutSamples() {
        let m = LatencyModel()
        #expect(m.deadline(s) == s.priorDeadline)
        #expect(m.expectedLatency(s) == s.priorMean)
    }

    /// The clock prior from the table's display and links: 4 frames + one connection interval
    /// + 13.3 ms; 60 Hz and 30 ms give the default.
    @Test func theClockPriorFollowsTheDisplayAndTheLink() {
        #expect(abs(LatencyModel.Settings.clockPriorDeadline(refreshHz: 60, bleInterval: 0.03) - s.clockPriorDeadline) < 1e-12)
        let fast = LatencyModel.Settings.clockPriorDeadline(refreshHz: 120, bleInterval: 0.0075)
        #expect(abs(fast - 0.054) < 0.0005, "\(fast)")
        #expect(LatencyModel.Settings.clockPriorDeadline(refreshHz: 144, bleInterval: 0.03) < s.clockPriorDeadline)
    }

    @Test func aQuickSensorGetsShorterDeadlines() {
        var m = LatencyModel()
        for i in 0..<40 { m.record(0.02 + 0.0005 * Double(i % 10), settings: s) }
        #expect(m.deadline(s) < 0.06)
        #expect(m.deadline(s) >= s.minDeadline)
    }

    @Test func aSlowSensorGetsLongerDeadlines() {
        var m = LatencyModel()
        for _ in 0..<40 { m.record(0.2, settings: s) }
        #expect(m.deadline(s) > s.priorDeadline)
        #expect(m.deadline(s) <= s.maxDeadline)
    }

    @Test func fewSamplesMoveThePriorOnlyAPart() {
        var m = LatencyModel()
        m.record(0.02, settings: s)
        let d = m.deadline(s)
        #expect(d < s.priorDeadline)
        #expect(d > 0.02 * s.slack + s.margin)
    }

    @Test func onlyTheRecentWindowIsKeptAndBadValuesAreIgnored() {
        var m = LatencyModel()
        for _ in 0..<(s.window + 5) { m.record(0.05, settings: s) }
        m.record(.nan, settings: s)
        m.record(-1, settings: s)
        m.record(.infinity, settings: s)
        #expect(m.samples.count == s.window)
    }

    @Test func deadlinesAreClamped() {
        var m = LatencyModel()
        for _ in 0..<40 { m.record(5, settings: s) }
        #expect(m.deadline(s) == s.maxDeadline)
    }
}
