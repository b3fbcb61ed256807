// The crowded table through the service's frame core: no PERC is ever reported on another
// PERC's place (issue 32), and the rule that keeps it so (`awaitUnannounced`) is what does.
import Foundation
import LightCheck
import MTKTangibles
import MTKSimulator
import PercRuntime
import Testing

@Suite struct CrowdedSwapTests {
    /// Plays the built-in crowded scenario with `seed` on a `SimulatedTable` (as `bench crowded`
    /// does), and counts tangible-frames against the truth; also which way each swapped
    /// tangible was taken, and how long after its first field-on each PERC was first tracked.
    static func play(seed: UInt64, engine: EngineConfig = EngineConfig(), lightChecks: LightCheckConfig = LightCheckConfig())
        throws -> (count: PoseTruthCount, takenBy: Set<String>, recognisedAfter: [TangibleID: Seconds]) {
        var s = BuiltInScenarios.named("crowded")!
        s.seed = seed
        var table = try SimulatedTable(s, frameRate: 120, engine: engine, lightChecks: lightChecks)
        var count = PoseTruthCount()
        var taken: [TangibleID: String] = [:], swappedWays: Set<String> = []
        var fieldOn: [TangibleID: Seconds] = [:], recognised: [TangibleID: Seconds] = [:]
        while !table.isOver {
            let (frame, result, _) = table.step()
            for e in table.core.lastOutput?.events ?? [] {
                if case .transition(_, let to, let reason) = e.event, to == .tracked { taken[e.tangible] = "\(reason)" }
                if case .transition(_, .onSurface, .fieldOn) = e.event, fieldOn[e.tangible] == nil { fieldOn[e.tangible] = e.time }
                if case .transition(_, .tracked, _) = e.event, recognised[e.tangible] == nil, let on = fieldOn[e.tangible] {
                    recognised[e.tangible] = e.time - on
                }
                if case .impossibleEvent = e.event { Issue.record("frame \(frame.number): \(e)") }
            }
            let before = count.swapped
            let world = table.runner.world
            count.add(result.snapshot.tangibles, at: frame.time) { world.truePose(of: $0) }
            if count.swapped > before {
                for t in result.snapshot.tangibles { if let w = taken[t.id] { swappedWays.insert(w) } }
            }
        }
        return (count, swappedWays, recognised)
    }

    /// The light checks as they were when the rules below were found: probes shown all at
    /// once (no `staggeredProbes`), a waiting check reserving at once (`reserveAfterWaiting`
    /// 0). Today's checks move the timing so these seeds no longer swap without the rules.
    static var unstaggered: LightCheckConfig {
        var c = LightCheckConfig()
        c.staggeredProbes = false
        c.reserveAfterWaiting = 0
        return c
    }

    @Test("16 PERCs in same-pattern pairs set down 36 ms apart: none is ever reported on another's place",
          arguments: [UInt64(32), 1, 2])
    func noSwappedFrame(seed: UInt64) throws {
        let r = try Self.play(seed: seed)
        print("crowded seed \(seed): \(r.count.poses) posed tangible-frames, \(r.count.correct) correct, \(r.count.swapped) swapped, \(r.count.unseen) unseen")
        #expect(r.count.swapped == 0, "swapped by \(r.count.swappedBy)")
        // Most of the table is seen: the rule must not leave PERCs unrecognised.
        #expect(Double(r.count.correct) >= 0.9 * Double(r.count.onSurface), "correct \(r.count.correct) of \(r.count.onSurface)")
    }

    /// Seed 3 without the rule swaps (47 tangible-frames; with the light checks of then,
    /// `unstaggered`), window guesses among the ways; with it, none (`noSwappedFrame`'s seeds, and seeds 3, 4, 8 and 10–14 when this was written).
    /// Seed 32 was the example until light's shorter deadlines (LightCheck `sensorClock`) moved
    /// its timing: PERC 13's field-on came while only PERC 14's touches had all begun, and its
    /// window guess took PERC 14's triple.
    @Test func withoutWaitingForUnannouncedSiblingsAWindowGuessSwaps() throws {
        var old = EngineConfig()
        old.awaitUnannounced = false
        let r = try Self.play(seed: 3, engine: old, lightChecks: Self.unstaggered)
        #expect(r.count.swapped > 0)
        #expect(r.takenBy.contains("windowGuess"), "\(r.takenBy)")
    }

    /// Seed 19 without the sensor's clock (LightCheck `sensorClock`): PERC standard 2 was
    /// confirmed by light on PERC standard 3's place (827 tangible-frames) and standard 3 took
    /// what was left (815): late answers read as answers to the next round. With the clock,
    /// none (24 seeds of `bench crowded`: 1,642 swapped frames without it, 0 with it). Since
    /// locates plan their discs with a wider edge (`locate.planningBlur`) the timing of seed 19
    /// moved and it no longer swaps without the clock; the example turns that off too.
    @Test func withoutTheSensorClockLightConfirmsASwap() throws {
        let with = try Self.play(seed: 19)
        #expect(with.count.swapped == 0, "swapped by \(with.count.swappedBy)")
        var off = Self.unstaggered
        off.sensorClock = false
        off.locate.planningBlur = 0
        let without = try Self.play(seed: 19, lightChecks: off)
        #expect(without.count.swapped > 0)
        #expect(without.takenBy.contains("lightConfirmed"), "\(without.takenBy)")
    }

    /// Pairs are asked about at once (`earlyPairCheckAfter` 0.02 s) only while no other PERC
    /// searches or is linked with its field off; beside such a PERC they wait 0.12 s
    /// (`crowdedPairCheckAfter`). Asked at once beside them, seed 19 swaps (light confirmed
    /// PERCs on their siblings' places: 811 tangible-frames when this was written).
    @Test func pairsBesideOtherSearchingPercsWait() throws {
        var atOnce = EngineConfig()
        atOnce.crowdedPairCheckAfter = atOnce.earlyPairCheckAfter
        let r = try Self.play(seed: 19, engine: atOnce)
        #expect(r.count.swapped > 0)
        #expect(r.takenBy.contains("lightConfirmed"), "\(r.takenBy)")
        // A recording made when one setting timed both reads this one from it.
        let old = try JSONDecoder().decode(EngineConfig.self, from: Data("{\"earlyPairCheckAfter\": 0.12}".utf8))
        #expect(old.crowdedPairCheckAfter == 0.12 && old.earlyLocateAfter == 0.12)
    }

    /// Seed 1: PERC 5 stood on one marker touch and searched on after its time window. At
    /// 2.31 s it asked light about PERC 7's triple and pairs (PERC 7's markers touched after
    /// PERC 5's window, its field-on came at 2.18 s) together with pairs of PERC 6; the check
    /// ran 3.4 s to an inconclusive end and PERC 7's own check waited behind it: PERC 7 was
    /// tracked 5.2 s after its field-on. With `otherWindowsFirst` a PERC past its window
    /// leaves touches that began in another searching PERC's window (and not in its own), or
    /// that are younger than a window while a linked PERC's field is off: PERC 7 is tracked
    /// within a second, PERC 5 (located) within 3 s. Off, as a recording made before the
    /// setting reads it, PERC 7 waits 2.87 s (over 4 s before a round stopped starting under
    /// another tangible's patch that went in the same frame). (PERC 7's pairs lie in its own
    /// triple, so `pairsYieldToOthersTriples` also keeps them from PERC 5 while PERC 7
    /// searches: off for the replay without `otherWindowsFirst`, which it mends on its own.)
    @Test func aPercPastItsWindowLeavesTheTouchesOfPercsSetDownLater() throws {
        let now = try Self.play(seed: 1)
        #expect(now.count.swapped == 0, "swapped by \(now.count.swappedBy)")
        #expect((now.recognisedAfter[7] ?? .infinity) < 1, "\(now.recognisedAfter)")
        #expect((now.recognisedAfter[5] ?? .infinity) < 3, "\(now.recognisedAfter)")
        var off = EngineConfig()
        off.otherWindowsFirst = false
        off.pairsYieldToOthersTriples = false
        let before = try Self.play(seed: 1, engine: off, lightChecks: Self.unstaggered)
        #expect((before.recognisedAfter[7] ?? .infinity) > 2, "\(before.recognisedAfter)")
        #expect(now.count.unseen < before.count.unseen, "on the surface over 1 s without a pose: \(now.count.unseen) against \(before.count.unseen)")
        let old = try JSONDecoder().decode(EngineConfig.self, from: Data("{}".utf8))
        #expect(!old.otherWindowsFirst && EngineConfig().otherWindowsFirst)
    }

    @Test("a recording made before awaitUnannounced existed reads it as off")
    func olderRecordingsReadItAsOff() throws {
        let old = try JSONDecoder().decode(EngineConfig.self, from: Data("{}".utf8))
        #expect(!old.awaitUnannounced)
        #expect(EngineConfig().awaitUnannounced)
        let roundTrip = try JSONDecoder().decode(EngineConfig.self, from: JSONEncoder().encode(EngineConfig()))
        #expect(roundTrip.awaitUnannounced)
    }
}
