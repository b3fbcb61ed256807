// The display's refresh from presented reports: whole periods found under jitter, other timing refused, memory bounded.
import Foundation
import Testing
@testable import PercDiagnose

@Suite struct DisplayAccumulatorTests {
    /// A deterministic generator (no global randomness in tests).
    struct LCG { var s: UInt64; mutating func next() -> Double { s = s &* 6364136223846793005 &+ 1442695040888963407; return Double(s >> 11) / Double(1 << 53) } }

    @Test func aVsyncAlignedAppGivesItsRefreshUnderJitter() throws {
        var rng = LCG(s: 7)
        var d = DisplayAccumulator()
        var vblank = 100.0
        for _ in 0..<400 {
            vblank += Double(1 + Int(rng.next() * 5)) / 144  // 1–5 refreshes between changed overlays
            d.presented(at: vblank + (rng.next() - 0.5) * 0.0004)  // ±0.2 ms mapping jitter
        }
        let r = try #require(d.report())
        let hz = try #require(r.refreshHz)
        #expect(abs(hz - 144) < 0.5, "\(r)")
        #expect(r.onWholePeriods > 0.95 && r.gaps == 399)
    }

    @Test func reportsTimedWithoutVsyncGiveNoRate() throws {
        var rng = LCG(s: 3)
        var d = DisplayAccumulator()
        var t = 50.0
        for _ in 0..<400 {
            t += 0.005 + rng.next() * 0.04  // a round trip plus a guess: any time
            d.presented(at: t)
        }
        let r = try #require(d.report())
        #expect(r.refreshHz == nil && r.periodMs == nil, "\(r)")
        #expect(ReportTable.display(r).contains("do not follow one refresh period"))
    }

    @Test func fewReportsAndSameRefreshReportsAreNotARate() throws {
        var d = DisplayAccumulator()
        #expect(d.report() == nil, "no report, no figures")
        for i in 0..<20 {
            d.presented(at: Double(i) / 60)
            d.presented(at: Double(i) / 60 + 0.001)  // a second overlay at the same refresh
        }
        let r = try #require(d.report())
        #expect(r.gaps == 19 && r.refreshHz == nil)
        #expect(ReportTable.display(r).contains("19 gaps between presented reports, 50 needed"), "\(ReportTable.display(r))")
    }

    /// A service runs for days: the gaps kept stay bounded.
    @Test func theGapsKeptAreBounded() throws {
        var d = DisplayAccumulator()
        for i in 0..<(DisplayAccumulator.capacity * 3) { d.presented(at: Double(i) / 60) }
        let r = try #require(d.report())
        let hz = try #require(r.refreshHz)
        #expect(r.gaps == DisplayAccumulator.capacity && abs(hz - 60) < 0.01)
        d.presented(at: .nan)
        #expect(d.report() == r, "a non-finite time is ignored")
    }
}
