// Bad input: unknown tangibles, withdrawn needs, unknown overlays, odd values, time going back.
import Testing
import MTKTangibles
@testable import LightCheck

@Suite struct BadInputTests {
    func running() -> HandDriver {
        var d = HandDriver()
        d.needs = [HandDriver.need(at: [Vec2(100, 100), Vec2(115, 100)])]
        d.step(at: 0, light: [(1, 0)])
        _ = d.presentNow()
        return d
    }

    @Test func eventsOfUnknownTangiblesAreCountedAndChangeNothing() {
        var d = running()
        let overlay = d.scheduler.overlay
        d.step(light: [(42, 1)])
        d.step(light: [(42, 0)])
        #expect(d.scheduler.diagnostics.badInput[.unknownTangibleEvent] == 2)
        #expect(d.scheduler.diagnostics.spontaneousFlips[42] == 1)
        #expect(d.outcomes.isEmpty)
        #expect(d.scheduler.overlay == overlay)
    }

    @Test func aWithdrawnNeedEndsWithoutAnOutcome() {
        var d = running()
        #expect(!d.scheduler.overlay.patches.isEmpty)
        d.needs = []
        d.step()
        #expect(d.scheduler.overlay.patches.isEmpty)
        #expect(d.scheduler.diagnostics.withdrawnNeeds == 1)
        #expect(d.scheduler.activeRequest(of: 1) == nil)
        // A flip now is no answer to anything.
        d.step(at: 0.06, light: [(1, 1)])
        #expect(d.outcomes.isEmpty)
        #expect(d.scheduler.diagnostics.spontaneousFlips[1] == 1)
    }

    @Test func aNewRequestReplacesTheOldOne() {
        var d = running()
        d.needs = [HandDriver.need(request: 8, at: [Vec2(100, 100)])]
        d.step()
        #expect(d.scheduler.activeRequest(of: 1) == 8)
        #expect(d.scheduler.diagnostics.withdrawnNeeds == 1)
    }

    @Test func presentedReportsForUnknownOverlaysAreIgnored() {
        var d = HandDriver()
        d.needs = [HandDriver.need(at: [Vec2(100, 100)])]
        d.step(at: 0, light: [(1, 0)])
        d.step(at: 0.01, presented: [PresentedOverlay(overlayID: 99, from: 0.01), PresentedOverlay(overlayID: 0, from: 0.01)])
        #expect(d.scheduler.diagnostics.badInput[.unknownOverlay] == 2)
        // The deadline runs from a real presentation only.
        d.step(at: 0.2)
        #expect(d.scheduler.diagnostics.silentRounds == 0)
    }

    @Test func oddLightValuesAndHypothesesAreRejected() {
        var d = HandDriver()
        var need = HandDriver.need(at: [Vec2(100, 100), Vec2(.nan, 1)])
        d.needs = [need]
        d.step(at: 0, light: [(1, 7)])
        #expect(d.scheduler.diagnostics.badInput[.badLightValue] == 1)
        #expect(d.scheduler.diagnostics.badInput[.badHypothesis] == 1)
        #expect(d.scheduler.overlay.patches.count == 1)
        need.hypotheses = []
        d.needs = [HandDriver.need(request: 9, at: [])]
        d.step()
        #expect(d.outcomes.last?.request == 9)
        #expect(d.outcomes.last?.result == .inconclusive)
    }

    @Test func timeGoingBackIsCountedAndHeld() {
        var d = running()
        d.step(at: 1.0)
        d.step(at: 0.5)
        d.step(at: .nan)
        #expect(d.scheduler.diagnostics.badInput[.timeWentBack] == 2)
    }

    @Test func aSecondNeedForOneTangibleWaitsItsTurn() {
        var d = running()
        d.needs.append(HandDriver.need(request: 3, at: [Vec2(100, 100)]))
        d.step()
        #expect(d.scheduler.activeRequest(of: 1) == 7)
        #expect(d.scheduler.diagnostics.badInput[.concurrentNeed] == 1)
    }
}
