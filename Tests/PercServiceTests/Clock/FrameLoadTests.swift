// FrameLoad: the frame thread's share of a core per window, the frames that overran, and when it gives up real-time.
import Testing
@testable import PercRuntime

@Suite struct FrameLoadTests {
    @Test func aWindowReportsTheShareOfACoreAndTheOverruns() {
        var load = FrameLoad(window: 10, maxShare: 0.5)
        #expect(load.frame(cpuNanoseconds: 1_000_000, period: 1.0 / 120, at: 0) == nil, "the first frame starts the window")
        var reports: [FrameLoad.Report] = []
        // 120 frames a second for 20 s, 1 ms of CPU each, one frame of 12 ms per second.
        for k in 1...2400 {
            let ns: UInt64 = k % 120 == 0 ? 12_000_000 : 1_000_000
            if let r = load.frame(cpuNanoseconds: ns, period: 1.0 / 120, at: Double(k) / 120) { reports.append(r) }
        }
        #expect(reports.count == 2)
        let r = reports[0]
        #expect(r.frames == 1200 && r.overruns == 10 && r.longestMs == 12)
        #expect(abs(r.share - (1190 * 0.001 + 10 * 0.012) / 10) < 1e-9)
        #expect(!r.tooBusy)
        #expect(reports[1].frames == 1200, "the next window starts afresh")
    }

    @Test func aThreadThatTakesMoreThanHalfACoreIsTooBusy() {
        var load = FrameLoad(window: 10, maxShare: 0.5)
        var last: FrameLoad.Report?
        for k in 0...1000 { last = load.frame(cpuNanoseconds: 6_000_000, period: 0.01, at: Double(k) / 100) ?? last }
        let r = try! #require(last)
        #expect(r.tooBusy && abs(r.share - 0.6) < 1e-9 && r.overruns == 0)
    }
}
