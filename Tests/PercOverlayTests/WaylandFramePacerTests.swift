// The Wayland pacer: one frame in flight, discarded frames unreported, the estimate mode (pure, time by argument).
import Testing
@testable import PercOverlay

struct WaylandFramePacerTests {
    static func request(_ serial: UInt64) -> FramePacer.Request {
        FramePacer.Request(discs: [OverlayDisc(x: 1, y: 1, radius: 1, white: true)], serial: serial)
    }

    @Test func aPresentedFrameIsReportedWithTheCompositorsTimeAndTheWaitingOneIsDrawnNext() {
        var p = WaylandFramePacer(mode: .presentation)
        #expect(p.handle(.requested(Self.request(1)), now: 10) == [.draw(Self.request(1), frame: 1)])
        #expect(p.handle(.requested(Self.request(2)), now: 10.001) == [])
        #expect(p.handle(.requested(Self.request(3)), now: 10.002) == [], "2 is superseded")
        #expect(p.handle(.presented(frame: 1, at: 10.016), now: 10.017) == [.reportPresented(serial: 1, at: 10.016), .draw(Self.request(3), frame: 2)])
    }

    @Test func aDiscardedFrameIsNotReportedAndTheNextIsDrawnAtOnce() {
        var p = WaylandFramePacer(mode: .presentation)
        _ = p.handle(.requested(Self.request(1)), now: 0)
        _ = p.handle(.requested(Self.request(2)), now: 0.001)
        #expect(p.handle(.discarded(frame: 1), now: 0.005) == [.discarded(serial: 1, frame: 1), .draw(Self.request(2), frame: 2)])
        #expect(p.handle(.presented(frame: 1, at: 0.02), now: 0.02) == [], "a late event for an ended frame is ignored")
    }

    @Test func aFrameWithoutFeedbackIsAbandonedAtTheDeadlineNotBefore() {
        var p = WaylandFramePacer(mode: .presentation)
        _ = p.handle(.requested(Self.request(1)), now: 0)
        #expect(p.deadline == WaylandFramePacer.completionTimeout)
        #expect(p.handle(.deadlineReached, now: WaylandFramePacer.completionTimeout - 0.017) == [])
        #expect(p.handle(.deadlineReached, now: WaylandFramePacer.completionTimeout) == [.abandon(serial: 1, frame: 1)])
        #expect(p.deadline == nil)
    }

    @Test func inEstimateModeTheFrameCallbackPlusOnePeriodIsReportedAndHoldsTheNextFrameUntilThen() {
        var p = WaylandFramePacer(mode: .presentation)
        p.fallBackToEstimate(period: 0.016)
        _ = p.handle(.requested(Self.request(1)), now: 0)
        _ = p.handle(.requested(Self.request(2)), now: 0.001)
        #expect(p.handle(.presented(frame: 1, at: 0.01), now: 0.01) == [], "wp_presentation is not used once fallen back")
        #expect(p.handle(.frameDone(frame: 1, at: 0.004), now: 0.004) == [.reportPresented(serial: 1, at: 0.02)])
        #expect(p.deadline == 0.02)
        #expect(p.handle(.deadlineReached, now: 0.019) == [])
        #expect(p.handle(.deadlineReached, now: 0.02) == [.draw(Self.request(2), frame: 2)])
    }
}
