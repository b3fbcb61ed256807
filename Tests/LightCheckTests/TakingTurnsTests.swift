// Two checks whose candidates lie on each other's (`LightCheckConfig.reserveAfterWaiting`): the
// one showing goes on without a bare frame between its rounds until the other has waited its
// limit; then it yields and the other gets its turn.
import Testing
import MTKTangibles
@testable import LightCheck

@Suite struct TakingTurnsTests {
    static let places = [Vec2(100, 100), Vec2(140, 100), Vec2(180, 100), Vec2(220, 100)]

    struct Run {
        /// Frames in which tangible 1's check ran but drew nothing, between two of its rounds.
        var bareFrames = 0
        /// When tangible 2 first drew, and when tangible 1's check ended.
        var secondFirstDrew: Seconds?
        var firstEnded: Seconds?
        var firstAnswers = 0
    }

    /// Tangible 1's sensor answers each of its rounds 50 ms after it shows (white probes
    /// over black, then black over white, …), under a probe or not: its check cannot decide
    /// quickly, it keeps running rounds. Tangible 2's sensor never answers. Both have the
    /// same four candidates, so each one's patches lie over the other's candidates.
    static func play(_ config: LightCheckConfig, until end: Seconds = 2, reportAgain: Bool = false) -> Run {
        var d = HandDriver(config: config)
        d.needs = [HandDriver.need(tangible: 1, request: 7, at: places), HandDriver.need(tangible: 2, request: 8, at: places)]
        d.step(at: 0, light: [(1, 0), (2, 0)])
        var run = Run()
        var colour1 = 0
        var shownAt: Seconds?
        var drewBefore = false
        var reported: UInt64 = 0
        while d.time < end {
            // The app shows each frame's overlay at once.
            let drew1 = d.scheduler.overlay.patches.contains { $0.tangible == 1 }
            if d.scheduler.overlay.patches.contains(where: { $0.tangible == 2 }), run.secondFirstDrew == nil { run.secondFirstDrew = d.time }
            if d.scheduler.activeRequest(of: 1) != nil, !drew1, drewBefore { run.bareFrames += 1 }
            if d.scheduler.overlay.patches.contains(where: { $0.tangible == 1 && $0.purpose == .probe }) {
                if shownAt == nil { shownAt = d.time }
            } else { shownAt = nil }
            drewBefore = drew1
            var light: [(TangibleID, Int)] = []
            if let s = shownAt, d.time + HandDriver.frame >= s + 0.05 {
                colour1 = 1 - colour1
                light = [(1, colour1)]
                run.firstAnswers += 1
                shownAt = nil
            }
            // Each new overlay is reported once, as an app does.
            let shown = d.scheduler.overlay.id > reported || reportAgain ? [PresentedOverlay(overlayID: d.scheduler.overlay.id, from: d.time)] : []
            reported = d.scheduler.overlay.id
            d.step(light: light, presented: shown)
            if run.firstEnded == nil, d.outcomes.contains(where: { $0.tangible == 1 }) { run.firstEnded = d.time }
        }
        return run
    }

    /// With the defaults tangible 1's rounds follow each other without a bare frame, so each
    /// answer tells its places apart, and its check ends sooner; before (a waiting check
    /// reserving at once, waiters in id order) tangible 1 lost a frame after every answer
    /// while tangible 2 still could not start, and the next answer told nothing about the
    /// places just probed.
    @Test func theShowingCheckGoesOnWithoutABareFrame() throws {
        var before = LightCheckConfig()
        before.reserveAfterWaiting = 0
        let old = Self.play(before)
        let now = Self.play(LightCheckConfig())
        #expect(old.bareFrames >= 2)
        #expect(now.bareFrames == 0)
        let ended = try #require(now.firstEnded), endedBefore = try #require(old.firstEnded)
        #expect(ended < endedBefore)
        #expect(now.firstAnswers < old.firstAnswers)
        // Tangible 2 gets its turn once tangible 1 is done, and sooner too.
        let second = try #require(now.secondFirstDrew), secondBefore = try #require(old.secondFirstDrew)
        #expect(second > ended && second < secondBefore)
    }

    /// A check that has waited its limit reserves, and goes first as the longest waiting:
    /// tangible 1 yields after its round and tangible 2 draws while tangible 1's check still
    /// runs.
    @Test func theLongestWaitingGetsItsTurn() throws {
        var quick = LightCheckConfig()
        quick.reserveAfterWaiting = 0.01
        let run = Self.play(quick)
        let second = try #require(run.secondFirstDrew)
        #expect(run.firstAnswers >= 1)
        #expect(second < run.firstEnded ?? .infinity)
        // With the defaults it waits for tangible 1's check to end (0.3 s are not reached).
        let patient = Self.play(LightCheckConfig())
        #expect(try #require(patient.secondFirstDrew) > patient.firstEnded ?? 0)
    }

    /// An app that reports the standing overlay again every frame (a second app, or a buggy
    /// one) teaches no presentation delay: tangible 2's turn comes as soon as with one report
    /// per overlay. Before (`presentationFromFirstReport` off), the delay grew with the empty
    /// overlay's age and tangible 2 waited on the echo of patches long gone.
    @Test func reportingAStandingOverlayAgainTeachesNoDelay() throws {
        let once = Self.play(LightCheckConfig())
        let again = Self.play(LightCheckConfig(), reportAgain: true)
        let first = try #require(once.secondFirstDrew), repeated = try #require(again.secondFirstDrew)
        #expect(repeated == first)
        var before = LightCheckConfig()
        before.presentationFromFirstReport = false
        let stretched = try #require(Self.play(before, reportAgain: true).secondFirstDrew)
        #expect(stretched > first + 0.2)
    }
}
