// Two sensors are not under one small patch: a patch over a place another check holds does not explain a flip for "none".
import Testing
import Foundation
import MTKTangibles
import MTKSimulator
@testable import LightCheck
import LightCheckRig

/// `LightCheckConfig.occupiedPlaces` (docs/lightcheck.md, "Every patch is evidence").
/// `bench accuracy --seed 2 --show 1660`: two PERCs of one pattern set down together, PERC 2
/// with one hypothesis (its own place), PERC 1 with its own place and one about 10 mm from
/// PERC 2's. Both checks drew in the same frames. Every flip of either sensor came while a
/// patch of the other's check of the same colour was within reach of its places, so "none"
/// explained every answer as well as the probe did: both beliefs stood still through 14
/// answered rounds and both checks ended inconclusive. PERC 2's patch sat on a place PERC 2's
/// check held with 0.99: PERC 1's sensor cannot be under it.
@Suite struct OccupiedPlacesTests {
    /// PERC 1 and PERC 2 (standard) `gap` mm apart; PERC 1's hypotheses are PERC 2's place
    /// shifted `near` mm, and its own; PERC 2's only its own. Returns (PERC 1's outcome,
    /// PERC 2's outcome, when each was decided).
    static func pair(seed: UInt64, gap: Double, near: Double, config: LightCheckConfig)
        -> (RigCheck.Score, RigCheck.Score, Seconds?, Seconds?) {
        var world = SimWorld(seed: seed, model: HardwareModel())
        var rng = SimRandom(seed: seed ^ 0x0CC0_9ED)
        let a = Pose(position: Vec2(300, 250), angle: rng.uniform(0, 6.28))
        let b = Pose(position: a.position + Vec2(gap, 0).rotated(by: rng.uniform(0, 6.28)), angle: rng.uniform(0, 6.28))
        for (id, pose) in [(TangibleID(1), a), (2, b)] {
            world.add(TangibleDefinition.standardPerc(id: id, name: "perc\(id)"))
            world.place(id, at: pose)
        }
        let shifted = Pose(position: b.position + Vec2(near, 0).rotated(by: rng.uniform(0, 6.28)), angle: b.angle)
        let checks = [
            RigCheck(tangible: 1, request: 101, relativePoses: [EveryPatchEvidenceTests.relative(shifted, from: a),
                                                                Pose(position: .zero, angle: 0)],
                     trueIndex: 1, from: 0.5),
            RigCheck(tangible: 2, request: 102, relativePoses: [Pose(position: .zero, angle: 0)], trueIndex: 0, from: 0.5),
        ]
        var rig = Scenarios.Rig(world: world, planner: LightCheckScheduler(config: config), checks: checks)
        rig.run(until: 3, untilDecided: true)
        let o1 = rig.outcome(of: 101), o2 = rig.outcome(of: 102)
        return (checks[0].score(o1?.result), checks[1].score(o2?.result), o1?.time, o2?.time)
    }

    /// (both confirmed right, any confirmed wrong, mean time to the later of the two) over
    /// `seeds` and a few gaps.
    static func run(_ config: LightCheckConfig, seeds: ClosedRange<UInt64>) -> (both: Int, wrong: Int, n: Int, mean: Double) {
        var both = 0, wrong = 0, n = 0, total = 0.0
        for seed in seeds {
            for gap in [40.0, 55.0] {
                let (s1, s2, t1, t2) = pair(seed: seed, gap: gap, near: 10, config: config)
                n += 1
                if s1 == .confirmedWrong || s2 == .confirmedWrong { wrong += 1 }
                if s1 == .confirmedRight, s2 == .confirmedRight { both += 1 }
                total += max(t1 ?? 3.5, t2 ?? 3.5) - 0.5
            }
        }
        return (both, wrong, n, total / Double(n))
    }

    @Test("a patch on a place another check holds does not explain a flip for none: both are confirmed")
    func checksNearEachOtherBothConfirm() {
        var off = LightCheckConfig()
        off.occupiedPlaces = false
        let with = Self.run(LightCheckConfig(), seeds: 1...20)
        let without = Self.run(off, seeds: 1...20)
        print("occupiedPlaces on: both right \(with.both) of \(with.n), wrong \(with.wrong), mean \(with.mean) s; off: \(without.both), \(without.wrong), \(without.mean) s")
        #expect(with.wrong == 0)
        #expect(with.both >= with.n * 9 / 10, "both confirmed in \(with.both) of \(with.n)")
        // The rule is what makes the difference: without it the two checks hold each other up.
        #expect(with.both > without.both || with.mean < without.mean - 0.1,
                "on: \(with.both), \(with.mean) s; off: \(without.both), \(without.mean) s")
    }

    @Test("recordings made before the setting read it as off; the weight is decoded")
    func decodesAsOffWhenMissing() throws {
        let old = try JSONDecoder().decode(LightCheckConfig.self, from: Data("{}".utf8))
        #expect(!old.occupiedPlaces)
        #expect(LightCheckConfig().occupiedPlaces)
        let set = try JSONDecoder().decode(LightCheckConfig.self, from: Data(#"{"occupiedPlaces": true, "occupiedWeight": 0.8}"#.utf8))
        #expect(set.occupiedPlaces && set.occupiedWeight == 0.8)
    }
}
