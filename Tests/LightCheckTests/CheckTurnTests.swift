// Checks that wait for each other's rounds take turns oldest first (`olderCheckFirst`).
import Foundation
import Testing
import MTKTangibles
import MTKSimulator
@testable import LightCheck
import LightCheckRig

/// `LightCheckConfig.olderCheckFirst` (docs/lightcheck.md "Cross-talk between tangibles"). PERC 2 is set down
/// and checked first; PERC 1 (its field-on later, its sensor far away) is checked on PERC 2's
/// place and places near it: two PERCs of one pattern hold the same touches
/// (`bench accuracy --seed 2 --show 439`). By tangible id, PERC 1's rounds followed each other
/// while PERC 2 waited for each one's echo to pass; oldest first, PERC 2 gets its turn.
@Suite struct CheckTurnTests {
    /// PERC 2 at `b`, PERC 1 300 mm away. PERC 2's check (from 0.5 s): its own place and a
    /// place 14–24 mm off. PERC 1's check (from 0.5 s + `lag`): PERC 2's two places and two
    /// more near them, none its own. Returns the rig once both are decided or at 4 s.
    static func contested(seed: UInt64, lag: Seconds, config: LightCheckConfig) -> Scenarios.Rig {
        var world = SimWorld(seed: seed, model: HardwareModel())
        var rng = SimRandom(seed: seed ^ 0x7A4E_5EED)
        let b = Pose(position: Vec2(300, 250), angle: rng.uniform(0, 6.28))
        let a = Pose(position: b.position + Vec2(300, 0).rotated(by: rng.uniform(0, 6.28)), angle: rng.uniform(0, 6.28))
        for (id, pose) in [(TangibleID(1), a), (2, b)] {
            world.add(TangibleDefinition.standardPerc(id: id, name: "perc\(id)"))
            world.place(id, at: pose)
        }
        // Places near PERC 2, in its own frame: another pose on its touches, and two fingers' pairs.
        let near = (0..<3).map { _ in
            Pose(position: Vec2(rng.uniform(14, 24), 0).rotated(by: rng.uniform(0, 6.28)), angle: rng.uniform(-0.5, 0.5))
        }
        func seenFromA(_ p: Pose) -> Pose {
            let onSurface = b.apply(p.position)
            return Pose(position: a.local(onSurface), angle: b.angle + p.angle - a.angle)
        }
        let own = Pose(position: .zero, angle: 0)
        let checks = [
            RigCheck(tangible: 2, request: 102, relativePoses: [own, near[0]], trueIndex: 0, from: 0.5),
            RigCheck(tangible: 1, request: 101, relativePoses: ([own] + near).map(seenFromA), trueIndex: nil, from: 0.5 + lag),
        ]
        var rig = Scenarios.Rig(world: world, planner: LightCheckScheduler(config: config), checks: checks)
        rig.run(until: 4, untilDecided: true)
        return rig
    }

    /// Over seeds and lags: PERC 2's time from its check's start to its confirmation (4 s when
    /// not confirmed), and how often each check ended wrong.
    static func figures(_ config: LightCheckConfig) -> (meanTime: Double, slowest: Double, wrong: Int, confirmed: Int, n: Int) {
        var total = 0.0, slowest = 0.0, wrong = 0, confirmed = 0, n = 0
        for seed: UInt64 in 1...20 {
            for lag in [0.06, 0.12, 0.2] {
                let rig = contested(seed: seed, lag: lag, config: config)
                n += 1
                let percTwo = rig.checks.first { $0.tangible == 2 }!, percOne = rig.checks.first { $0.tangible == 1 }!
                let outcome = rig.outcome(of: percTwo.request)
                let score = percTwo.score(outcome?.result)
                if score == .confirmedRight { confirmed += 1 }
                if score == .confirmedWrong || score == .rejectedWrong { wrong += 1 }
                if percOne.score(rig.outcome(of: percOne.request)?.result) == .confirmedWrong { wrong += 1 }
                let t = score == .confirmedRight ? (outcome!.time - percTwo.from) : 3.5
                total += t
                slowest = max(slowest, t)
            }
        }
        return (total / Double(n), slowest, wrong, confirmed, n)
    }

    @Test("the PERC checked first is not starved by a later check of its place")
    func olderCheckGoesFirst() {
        var off = LightCheckConfig()
        off.olderCheckFirst = false
        let with = Self.figures(LightCheckConfig()), without = Self.figures(off)
        print("contested place, PERC 2 confirmed after (mean / slowest): oldest first \(with.meanTime) / \(with.slowest) s "
              + "(\(with.confirmed) of \(with.n)), by id \(without.meanTime) / \(without.slowest) s (\(without.confirmed) of \(without.n))")
        #expect(with.wrong == 0 && without.wrong == 0)
        #expect(with.confirmed >= without.confirmed)
        #expect(with.meanTime < without.meanTime)
    }

    @Test("a configuration written before the setting reads it as off")
    func oldConfigReadsOff() throws {
        let old = try JSONDecoder().decode(LightCheckConfig.self, from: Data("{\"patchRadius\": 4}".utf8))
        #expect(!old.olderCheckFirst && LightCheckConfig().olderCheckFirst)
    }
}
