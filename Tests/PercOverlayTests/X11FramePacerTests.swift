// The overlay's pacing: latest show wins, one frame in flight, each drawn frame reported once.
import Testing
@testable import PercOverlay

@Suite struct X11FramePacerTests {
    private func request(_ serial: UInt64) -> FramePacer.Request {
        FramePacer.Request(discs: [OverlayDisc(x: 1, y: 1, radius: 1, white: true)], serial: serial)
    }

    @Test func aShowWhileIdleIsDrawnAtOnceAndReportedAtItsCompletion() {
        var pacer = FramePacer(mode: .present)
        let shown = pacer.handle(.requested(request(1)), now: 10)
        #expect(shown == [.draw(request(1), frame: 1)])
        let completed = pacer.handle(.presentCompleted(frame: 1, at: 10.016), now: 10.017)
        #expect(completed == [.reportPresented(serial: 1, at: 10.016)])
        #expect(pacer.state == .idle)
    }

    @Test func showsWhileAFrameIsInFlightWaitAndOnlyTheLatestIsDrawn() {
        var pacer = FramePacer(mode: .present)
        _ = pacer.handle(.requested(request(1)), now: 10)
        let second = pacer.handle(.requested(request(2)), now: 10.001)
        let third = pacer.handle(.requested(request(3)), now: 10.002)
        #expect(second.isEmpty && third.isEmpty)
        let firstCompleted = pacer.handle(.presentCompleted(frame: 1, at: 10.016), now: 10.017)
        #expect(firstCompleted == [.reportPresented(serial: 1, at: 10.016), .draw(request(3), frame: 2)])
        let thirdCompleted = pacer.handle(.presentCompleted(frame: 2, at: 10.033), now: 10.034)
        #expect(thirdCompleted == [.reportPresented(serial: 3, at: 10.033)])
    }

    @Test func aCompletionForAnotherFrameIsNotReported() {
        var pacer = FramePacer(mode: .present)
        _ = pacer.handle(.requested(request(1)), now: 10)
        let stray = pacer.handle(.presentCompleted(frame: 7, at: 10.016), now: 10.017)
        #expect(stray.isEmpty)
        #expect(pacer.state == .awaitingCompletion(frame: 1, serial: 1, drawnAt: 10))
    }

    @Test func aFrameWithoutCompletionIsAbandonedAtTheTimeoutAndTheNextIsDrawn() {
        var pacer = FramePacer(mode: .present)
        _ = pacer.handle(.requested(request(1)), now: 10)
        _ = pacer.handle(.requested(request(2)), now: 10.1)
        #expect(pacer.deadline == 10 + FramePacer.completionTimeout)
        let early = pacer.handle(.deadlineReached, now: 10 + FramePacer.completionTimeout - 0.016)
        #expect(early.isEmpty)
        let due = pacer.handle(.deadlineReached, now: 10 + FramePacer.completionTimeout)
        #expect(due == [.abandon(serial: 1, frame: 1), .draw(request(2), frame: 2)])
        // Its completion arriving late reports nothing.
        let late = pacer.handle(.presentCompleted(frame: 1, at: 10.6), now: 10.6)
        #expect(late.isEmpty)
    }

    @Test func anEstimateIsTheRoundTripPlusOnePeriodAndHoldsTheNextFrameUntilThen() {
        var pacer = FramePacer(mode: .estimate(period: 0.02))
        let shown = pacer.handle(.requested(request(1)), now: 10)
        #expect(shown == [.draw(request(1), frame: 1)])
        _ = pacer.handle(.requested(request(2)), now: 10.001)
        let returned = pacer.handle(.roundTripReturned(at: 10.002), now: 10.002)
        #expect(returned == [.reportPresented(serial: 1, at: 10.022)])
        #expect(pacer.deadline == 10.022)
        let early = pacer.handle(.deadlineReached, now: 10.021)
        #expect(early.isEmpty)
        let due = pacer.handle(.deadlineReached, now: 10.022)
        #expect(due == [.draw(request(2), frame: 2)])
    }

    @Test func framesAreNumberedFromOneUp() {
        var pacer = FramePacer(mode: .present)
        var frames: [UInt32] = []
        for serial in UInt64(1)...3 {
            guard case .draw(_, let frame)? = pacer.handle(.requested(request(serial)), now: 0).first else { continue }
            frames.append(frame)
            _ = pacer.handle(.presentCompleted(frame: frame, at: 0), now: 0)
        }
        #expect(frames == [1, 2, 3])
    }
}
