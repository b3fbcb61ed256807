// Deadlines fire as the frame time reaches them: one frame before nothing, at the deadline silence counts.
import Testing
import MTKTangibles
@testable import LightCheck

@Suite struct DeadlineTests {
    /// One candidate, sensor black, overlay presented at 0.
    func started() -> HandDriver {
        var d = HandDriver()
        d.needs = [HandDriver.need(at: [Vec2(100, 100)])]
        d.step(at: 0, light: [(1, 0)])
        _ = d.presentNow()
        return d
    }

    @Test func probeShowsTheOppositeColourUnderTheCandidate() {
        let d = started()
        let patches = d.scheduler.overlay.patches
        #expect(patches.count == 1)
        #expect(patches.first?.colour == .white)
        #expect(patches.first?.purpose == .probe)
        #expect(patches.first?.center == Vec2(100, 100))
    }

    @Test func silenceCountsAtTheDeadlineNotAFrameBefore() {
        var d = started()
        let deadline = d.scheduler.deadline(for: 1)
        #expect(deadline == LightCheckConfig().latency.priorDeadline)
        let overlayBefore = d.scheduler.overlay.id
        d.step(at: deadline - HandDriver.frame)
        #expect(d.scheduler.diagnostics.silentRounds == 0)
        #expect(d.scheduler.overlay.id == overlayBefore)
        d.step(at: deadline)
        #expect(d.scheduler.diagnostics.silentRounds == 1)
        // The probe was missed: the next round first shows the decoy colour there again, or
        // the sensor would never see a change to answer.
        #expect(d.scheduler.overlay.patches.first?.colour == .black)
        #expect(d.outcomes.isEmpty)
    }

    @Test func aFlipInsideTheWindowConfirmsAndIsLearned() {
        var d = started()
        d.step(at: 0.06, light: [(1, 1)])
        #expect(d.outcomes == [VerificationOutcome(tangible: 1, request: 7, result: .confirmed(hypothesis: 0), time: 0.06)])
        #expect(d.scheduler.latencyModel(for: 1).samples == [0.06])
        #expect(d.scheduler.overlay.patches.isEmpty)
    }

    @Test func aFlipSoonerThanAnyAnswerIsSpontaneous() {
        var d = started()
        d.step(at: 0.001, light: [(1, 1)])
        #expect(d.outcomes.isEmpty)
        #expect(d.scheduler.diagnostics.spontaneousFlips[1] == 1)
        #expect(d.scheduler.latencyModel(for: 1).samples.isEmpty)
        // The next round works from the new colour: the probe is now black.
        #expect(d.scheduler.overlay.patches.first?.colour == .black)
    }

    @Test func withoutAReportThePresentationIsAssumedAfterTheTimeout() {
        var d = HandDriver()
        d.needs = [HandDriver.need(at: [Vec2(100, 100)])]
        d.step(at: 0, light: [(1, 0)])
        let timeout = LightCheckConfig().presentationTimeout
        d.step(at: timeout - HandDriver.frame)
        #expect(d.scheduler.diagnostics.silentRounds == 0)
        d.step(at: timeout)
        #expect(d.scheduler.diagnostics.assumedPresentations == 1)
        #expect(d.scheduler.diagnostics.silentRounds == 1)
    }

    @Test func anUnknownSensorStateIsPrimedFirst() {
        var d = HandDriver()
        d.needs = [HandDriver.need(at: [Vec2(100, 100), Vec2(115, 100)])]
        d.step(at: 0)
        #expect(d.scheduler.overlay.patches.map(\.colour) == [.black, .black])
        #expect(d.scheduler.overlay.patches.allSatisfy { $0.purpose == .decoy })
        _ = d.presentNow()
        d.step(at: d.scheduler.deadline(for: 1))
        #expect(d.scheduler.sensorColour(of: 1) == .black)
        #expect(d.scheduler.overlay.patches.contains { $0.purpose == .probe && $0.colour == .white })
    }
}
