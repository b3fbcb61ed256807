// Placements of `bench accuracy` (seed 1, as drawn today) behind staggered probes and taking
// turns, played like the bench does (Engine → LightCheckScheduler → simulated display and
// light sensor).
import Testing
import MTKTangibles
@testable import LightCheck

@Suite struct StaggeredPlacementTests {
    let rig = PlacementRegressionTests()

    /// Played at the engine's timing when these cases were found
    /// (`PlacementRegressionTests.foundTiming`): today's asks about pairs at once, and case
    /// 6811 is then a window guess.
    func play(seed: UInt64, index: Int, config: EngineConfig = PlacementRegressionTests.foundTiming,
              lightChecks: LightCheckConfig = LightCheckConfig()) throws -> PlacementRegressionTests.Played {
        try rig.play(seed: seed, index: index, today: true, config: config, lightChecks: lightChecks)
    }

    /// Case 6811: PERC 1's first staggered round held its own place in its first probe set.
    /// Its sensor's clock had been read through a few notifications only, the fastest of
    /// them itself ~27 ms late, so the change was estimated that late and, with a bound on
    /// the clock of 99% (the host stack left out), fell 1 ms into the second probe set's span:
    /// light confirmed a finger's pair. The span's end now allows for it.
    @Test func aChangeReadThroughAPoorClockIsNotTheNextProbesAnswer() throws {
        let r = try play(seed: 1, index: 6811)
        #expect(!r.wrong)
        #expect(r.recognised != nil)
    }

    /// Case 186: PERC 2, set down before, waited behind PERC 1's patches (the echo), and
    /// reserving at once made PERC 1 lose a frame after every answer: that bare frame made
    /// two of its five answers tell nothing. Taking turns after 0.3 s: PERC 1 is recognised
    /// with fewer flips and sooner.
    @Test func takingTurnsSparesTheAnswersOfTheShowingCheck() throws {
        var before = LightCheckConfig()
        before.reserveAfterWaiting = 0
        let old = try play(seed: 1, index: 186, lightChecks: before)
        let now = try play(seed: 1, index: 186)
        #expect(!old.wrong && !now.wrong)
        let today = try play(seed: 1, index: 186, config: EngineConfig())
        #expect(!today.wrong && today.correct)
        let late = try #require(old.recognised), soon = try #require(now.recognised)
        #expect(soon < late)
        #expect(now.flips < old.flips)
    }

    /// The same placements without staggering nor taking turns end right too, later.
    @Test func withoutStaggeringTheyEndRightButLater() throws {
        var off = LightCheckConfig()
        off.staggeredProbes = false
        off.reserveAfterWaiting = 0
        for index in [6811, 186] {
            let r = try play(seed: 1, index: index, lightChecks: off)
            let now = try play(seed: 1, index: index)
            #expect(!r.wrong)
            #expect(try #require(now.recognised) <= #require(r.recognised), "case \(index)")
        }
    }
}
