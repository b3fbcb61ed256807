// `percbridge bench crowded` through the CLI: the crowded table swaps no PERC, and the log of
// the PERC whose field-on came first (seed 32, PERC 13) shows light deciding, not a guess.
import Foundation
import Testing
import PercTestSupport

@Suite struct CrowdedBenchTests {
    @Test func theCrowdedTableSwapsNothingAndSaysSo() throws {
        let run = try CLI.run(["bench", "crowded", "--seeds", "32", "--log", "13"])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("swapped: none (goal: 0)"), "\(run.stdout)")
        #expect(!run.stdout.contains("first swapped frame"), "\(run.stdout)")
        // PERC 13 (near-equilateral 1) is set down 36 ms before PERC 14 of its pattern, and its
        // field-on comes while only PERC 14's touches have all begun: no window guess is taken
        // while PERC 14 may still announce that triple; light confirms PERC 13 on its own.
        let events = run.stdout.split(separator: "\n").filter { $0.contains("reason: MTKTangibles.TransitionReason") }
        let firstTracked = events.first { $0.contains("to: MTKTangibles.TangibleStateName.tracked") }
        #expect(firstTracked?.contains("lightConfirmed") == true, "\(events.joined(separator: "\n"))")
        #expect(!run.stdout.contains("reason: MTKTangibles.TransitionReason.windowGuess"), "\(run.stdout)")
    }

    /// Seed 4 swapped two scalene PERCs for 1,938 frames each while a gone patch explained a
    /// flip only if no patch covered its place at the time of the flip: a frame with no patch
    /// there between two rounds went unexplained, and a sensor answering the scene of that
    /// frame was read as answering the next round (docs/lightcheck.md, "A gap between rounds").
    @Test func aGapBetweenRoundsIsNoAnswer() throws {
        let run = try CLI.run(["bench", "crowded", "--seeds", "4"])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("swapped: none (goal: 0)"), "\(run.stdout)")
    }

    @Test func badOptionsAreRefused() throws {
        let scenario = try CLI.run(["bench", "crowded", "--scenario", "nope"])
        #expect(scenario.status != 0 && scenario.stderr.contains("no built-in scenario"), "\(scenario.stderr)")
        let rate = try CLI.run(["bench", "crowded", "--rate", "5"])
        #expect(rate.status != 0 && rate.stderr.contains("--rate"), "\(rate.stderr)")
    }
}
