// A light sensor's answer is evidence about every patch shown: no check confirms a hypothesis from a flip another check's patch could explain.
import Testing
import MTKTangibles
import MTKSimulator
@testable import LightCheck
import LightCheckRig

/// `LightCheckConfig.everyPatchEvidence` and `toldApartFromDeparted` (docs/lightcheck.md,
/// "Every patch is evidence"). Two PERCs of one pattern set down together each have the
/// other's place among their hypotheses (the same traces fit both), and their checks run in
/// the same frames: one's patch over the other's sensor, a late answer to a patch that just
/// went, a spontaneous flip while the other sensor answered the probe, must never confirm a
/// PERC on the other's place.
@Suite struct EveryPatchEvidenceTests {
    /// The settings before the rule (as recordings made before it read them).
    static var before: LightCheckConfig {
        var c = LightCheckConfig()
        c.everyPatchEvidence = false
        c.toldApartFromDeparted = false
        return c
    }

    /// Hardware that misbehaves more than the model's defaults (misses, spontaneous flips,
    /// slow answers), and a scheduler that knows it: wrong answers come often enough to be
    /// seen in a few dozen seeds.
    static var noisy: HardwareModel {
        var m = HardwareModel()
        m.lightMissProbability = 0.1
        m.lightSpontaneousFlipRate = 0.2
        m.lightResponseFramesMax = 6
        return m
    }

    static func config(_ base: LightCheckConfig) -> LightCheckConfig {
        var c = base
        c.missProbability = 0.1
        c.spontaneousFlipRate = 0.2
        // Its sensor answers up to 6 frames after a patch shows: the end of its response span
        // (staggered probes take their spacing from it).
        c.latency.maxSensorResponse = 6.0 / 60 + 0.005
        return c
    }

    /// `relative` of `to` seen from `from`: the pose that `RigCheck` applies to `from` to get `to`.
    static func relative(_ to: Pose, from: Pose) -> Pose {
        Pose(position: from.local(to.position), angle: to.angle - from.angle)
    }

    /// Two standard PERCs `gap` mm apart, set down together; each check's hypotheses are
    /// `own` (its own place, unless false) and the other's place, plus a place `decoyShift`
    /// off its own when given. Returns the rig after `until` seconds.
    static func pair(seed: UInt64, gap: Double, own: Bool, config: LightCheckConfig, model: HardwareModel,
                     until: Seconds = 4) -> Scenarios.Rig {
        var world = SimWorld(seed: seed, model: model)
        var rng = SimRandom(seed: seed ^ 0xA11C_E5)
        let a = Pose(position: Vec2(300, 250), angle: rng.uniform(0, 6.28))
        let b = Pose(position: a.position + Vec2(gap, 0).rotated(by: rng.uniform(0, 6.28)), angle: rng.uniform(0, 6.28))
        let poses: [TangibleID: Pose] = [1: a, 2: b]
        for id: TangibleID in [1, 2] {
            world.add(TangibleDefinition.standardPerc(id: id, name: "perc\(id)"))
            world.place(id, at: poses[id]!)
        }
        var checks: [RigCheck] = []
        for (id, other) in [(TangibleID(1), TangibleID(2)), (2, 1)] {
            var rel = [relative(poses[other]!, from: poses[id]!)]
            if own { rel.append(Pose(position: .zero, angle: 0)) }
            // A third place (a finger pair's), away from both.
            rel.append(Pose(position: Vec2(rng.uniform(14, 24), 0).rotated(by: rng.uniform(0, 6.28)), angle: rng.uniform(-0.5, 0.5)))
            checks.append(RigCheck(tangible: id, request: UInt64(100 + id), relativePoses: rel, trueIndex: own ? 1 : nil,
                                   from: 0.5 + (id == 2 ? 0.036 : 0)))
        }
        var rig = Scenarios.Rig(world: world, planner: LightCheckScheduler(config: config), checks: checks)
        rig.run(until: until, untilDecided: true)
        return rig
    }

    /// (confirmed on the other's place, confirmed right, checks) over `seeds`.
    static func swaps(seeds: ClosedRange<UInt64>, own: Bool, config: LightCheckConfig,
                      model: HardwareModel) -> (swapped: [UInt64], right: Int, checks: Int) {
        var swapped: [UInt64] = [], right = 0, n = 0
        for seed in seeds {
            for gap in [40.0, 70.0] {
                let rig = pair(seed: seed, gap: gap, own: own, config: config, model: model)
                for c in rig.checks {
                    n += 1
                    switch c.score(rig.outcome(of: c.request)?.result) {
                    case .confirmedWrong: swapped.append(seed)
                    case .confirmedRight: right += 1
                    default: break
                    }
                }
            }
        }
        return (swapped, right, n)
    }

    @Test("two PERCs of one pattern set down together are never confirmed on each other's place")
    func noSwapWhenBothChecksRunAtOnce() {
        let r = Self.swaps(seeds: 1...30, own: true, config: Self.config(LightCheckConfig()), model: Self.noisy)
        print("pair, own place offered: swapped \(r.swapped), right \(r.right) of \(r.checks)")
        #expect(r.swapped.isEmpty, "confirmed on the other's place: seeds \(r.swapped)")
        #expect(r.right >= r.checks * 3 / 4)
    }

    @Test("a PERC whose own place is not offered is not confirmed on the other's")
    func noSwapWhenTheOwnPlaceIsMissing() {
        let r = Self.swaps(seeds: 1...30, own: false, config: Self.config(LightCheckConfig()), model: Self.noisy)
        print("pair, own place not offered: swapped \(r.swapped) of \(r.checks)")
        #expect(r.swapped.isEmpty, "confirmed on the other's place: seeds \(r.swapped)")
    }

    /// The same scenarios with the rule off (as before it existed) do swap: the tests above
    /// can fail.
    @Test("with the rule off the same scenarios swap")
    func beforeTheRuleTheyDoSwap() {
        let with = Self.swaps(seeds: 1...30, own: true, config: Self.config(Self.before), model: Self.noisy)
        let without = Self.swaps(seeds: 1...30, own: false, config: Self.config(Self.before), model: Self.noisy)
        print("before the rule: swapped \(with.swapped) / \(without.swapped)")
        #expect(!with.swapped.isEmpty || !without.swapped.isEmpty)
    }

    /// A random crowded table: `n` standard PERCs set down within 60 ms of each other, in
    /// a tight group (35–90 mm apart), each with a check whose hypotheses are its own place
    /// (not always: the engine may miss it), the places of one or two others (their traces
    /// fit it too) and a finger pair's place nearby, in a random order.
    static func crowd(seed: UInt64, config: LightCheckConfig, model: HardwareModel = HardwareModel()) -> Scenarios.Rig {
        var world = SimWorld(seed: seed, model: model)
        var rng = SimRandom(seed: seed ^ 0xC0_0D5E)
        let n = rng.int(3...6)
        var poses: [Pose] = []
        while poses.count < n {
            let anchor = poses.isEmpty ? Vec2(400, 250) : poses[rng.int(0...(poses.count - 1))].position
            let p = anchor + Vec2(rng.uniform(35, 90), 0).rotated(by: rng.uniform(0, 6.28))
            guard poses.allSatisfy({ $0.position.distance(to: p) >= 35 }) else { continue }
            poses.append(Pose(position: p, angle: rng.uniform(0, 6.28)))
        }
        var checks: [RigCheck] = []
        for (k, pose) in poses.enumerated() {
            let id = TangibleID(k + 1)
            world.add(TangibleDefinition.standardPerc(id: id, name: "perc\(id)"))
            world.place(id, at: pose)
            var rel: [Pose] = []
            var trueIndex: Int?
            if rng.chance(0.6) { trueIndex = 0; rel.append(Pose(position: .zero, angle: 0)) }
            for _ in 0..<rng.int(1...2) {
                let other = poses[rng.int(0...(n - 1))]
                if other != pose, !rel.contains(relative(other, from: pose)) { rel.append(relative(other, from: pose)) }
            }
            rel.append(Pose(position: Vec2(rng.uniform(14, 24), 0).rotated(by: rng.uniform(0, 6.28)), angle: rng.uniform(-0.5, 0.5)))
            // Shuffle (the true place, if offered, lands anywhere).
            var order = Array(rel.indices)
            for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, rng.int(0...i)) }
            let shuffled = order.map { rel[$0] }
            checks.append(RigCheck(tangible: id, request: UInt64(100 + k), relativePoses: shuffled,
                                   trueIndex: trueIndex.map { t in order.firstIndex(of: t)! }, from: 0.5 + rng.uniform(0, 0.06)))
        }
        var rig = Scenarios.Rig(world: world, planner: LightCheckScheduler(config: config), checks: checks)
        rig.run(until: 4, untilDecided: true)
        return rig
    }

    /// The property: whatever the crowd, no check confirms a hypothesis the sensor is not
    /// under (a flip another check's patch could explain confirms nothing), and the checks
    /// whose place is offered are still mostly confirmed.
    @Test("random crowded tables never confirm a place a PERC is not on")
    func crowdedTablesConfirmOnlyTrueplaces() {
        var wrong: [UInt64] = [], right = 0, offered = 0
        for seed: UInt64 in 1...40 {
            let rig = Self.crowd(seed: seed, config: LightCheckConfig())
            for c in rig.checks {
                if c.trueIndex != nil { offered += 1 }
                switch c.score(rig.outcome(of: c.request)?.result) {
                case .confirmedWrong: wrong.append(seed)
                case .confirmedRight: right += 1
                default: break
                }
            }
        }
        print("crowded: wrong \(wrong), right \(right) of \(offered) offered")
        #expect(wrong.isEmpty, "confirmed a place its PERC is not on: seeds \(wrong)")
        #expect(right >= offered * 3 / 4)
    }

    /// The same crowds before the rule: some check takes another PERC's place.
    @Test("random crowded tables before the rule do confirm wrong places")
    func crowdedTablesBeforeTheRule() {
        var wrong = 0
        for seed: UInt64 in 1...40 {
            let rig = Self.crowd(seed: seed, config: Self.before)
            wrong += rig.checks.filter { $0.score(rig.outcome(of: $0.request)?.result) == .confirmedWrong }.count
        }
        print("crowded before the rule: wrong \(wrong)")
        #expect(wrong > 0)
    }
}
