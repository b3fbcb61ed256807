// Two sensors are not under one small patch: a patch over a place another check holds does not explain a flip for "none".
import Testing
import Foundation
import MTKTangibles
import MTKSimulator
@testable import LightCheck
import LightCheckRig

/// `LightCheckConfig.occupiedPlaces` (docs/lightcheck.md, "Every patch is evidence"; the
/// case that needs it: `PlacementRegressionTests.occupiedPlaceExplainsNoNone`). What makes a
/// place occupied must not let a PERC be confirmed where it is not.
@Suite struct OccupiedPlacesTests {
    /// A check of one hypothesis starts at 0.95: with the weight alone its place was
    /// "occupied" before any answer, and this scenario confirmed a wrong place in 14 of its 60
    /// pairs. Requiring an answer of that check's own sensor to a round that probed only the
    /// place was not enough (4 at 40 mm): two sensors can each answer the other's probes. A
    /// place is occupied only after such an answer that no other patch explained for "none".
    /// Here: PERC 1 checks PERC 2's place alone, PERC 2 checks PERC 1's place and a finger
    /// pair's; neither own place is offered, so any confirmation is wrong. (At 70 mm apart,
    /// beyond `explainReach`, PERC 1 is confirmed on PERC 2's place with or without the
    /// setting: docs/recognition.md, "Two checks that explain each other".)
    /// `ownPlaceKnown`: each need names its tangible's own place as a candidate it does not
    /// offer (`VerificationNeed.otherPlaces`), as the engine does for a triple of the PERC's
    /// window that another PERC's check holds.
    static func priorOnly(seed: UInt64, gap: Double, config: LightCheckConfig, model: HardwareModel,
                          ownPlaceKnown: Bool = false) -> [RigCheck.Score] {
        var world = SimWorld(seed: seed, model: model)
        var rng = SimRandom(seed: seed ^ 0x9_0CC)
        let a = Pose(position: Vec2(300, 250), angle: rng.uniform(0, 6.28))
        let b = Pose(position: a.position + Vec2(gap, 0).rotated(by: rng.uniform(0, 6.28)), angle: rng.uniform(0, 6.28))
        for (id, pose) in [(TangibleID(1), a), (2, b)] {
            world.add(TangibleDefinition.standardPerc(id: id, name: "perc\(id)"))
            world.place(id, at: pose)
        }
        let finger = Pose(position: Vec2(rng.uniform(14, 24), 0).rotated(by: rng.uniform(0, 6.28)), angle: rng.uniform(-0.5, 0.5))
        let own = ownPlaceKnown ? [Pose(position: .zero, angle: 0)] : []
        let checks = [
            RigCheck(tangible: 1, request: 101, relativePoses: [EveryPatchEvidenceTests.relative(b, from: a)], trueIndex: nil, from: 0.5,
                     otherRelativePoses: own),
            RigCheck(tangible: 2, request: 102, relativePoses: [EveryPatchEvidenceTests.relative(a, from: b), finger],
                     trueIndex: nil, from: 0.5 + rng.uniform(0, 0.06), otherRelativePoses: own),
        ]
        var rig = Scenarios.Rig(world: world, planner: LightCheckScheduler(config: config), checks: checks)
        rig.run(until: 3, untilDecided: true)
        return checks.map { $0.score(rig.outcome(of: $0.request)?.result) }
    }

    @Test("a place held by its prior or by explained answers does not keep another's flip from explaining none")
    func aPriorAloneOccupiesNothing() {
        var wrong: [UInt64] = [], rejected = 0, n = 0
        for seed: UInt64 in 1...30 {
            for gap in [40.0, 50.0] {
                let scores = Self.priorOnly(seed: seed, gap: gap, config: EveryPatchEvidenceTests.config(LightCheckConfig()),
                                            model: EveryPatchEvidenceTests.noisy)
                n += scores.count
                if scores.contains(.confirmedWrong) { wrong.append(seed) }
                rejected += scores.filter { $0 == .rejectedRight }.count
            }
        }
        print("own places not offered: confirmed wrong in seeds \(wrong), rejected \(rejected) of \(n)")
        #expect(wrong.isEmpty, "confirmed on the other's place: seeds \(wrong)")
        #expect(rejected > 0)
    }

    /// Beyond `explainReach` (70 mm apart) the other's probe on this sensor lies too far from
    /// the one hypothesis for "none" to explain the flip: PERC 1 was confirmed on PERC 2's
    /// place. When the need names the PERC's own place among its candidates not offered,
    /// the probe over it explains the flip for "none" (`LightCheckConfig.explainOtherPlaces`).
    @Test("a probe over a candidate the need does not offer explains a flip for none")
    func otherPlacesExplainNone() {
        func wrongSeeds(_ config: LightCheckConfig) -> (wrong: [UInt64], rejected: Int, n: Int) {
            var wrong: [UInt64] = [], rejected = 0, n = 0
            for seed: UInt64 in 1...30 {
                let scores = Self.priorOnly(seed: seed, gap: 70, config: EveryPatchEvidenceTests.config(config),
                                            model: EveryPatchEvidenceTests.noisy, ownPlaceKnown: true)
                n += scores.count
                if scores.contains(.confirmedWrong) { wrong.append(seed) }
                rejected += scores.filter { $0 == .rejectedRight }.count
            }
            return (wrong, rejected, n)
        }
        var off = LightCheckConfig()
        off.explainOtherPlaces = false
        let before = wrongSeeds(off), after = wrongSeeds(LightCheckConfig())
        print("70 mm apart, own places named but not offered: confirmed wrong in seeds \(before.wrong) without the setting, \(after.wrong) with it; rejected \(after.rejected) of \(after.n)")
        #expect(!before.wrong.isEmpty, "the rig no longer shows the hole the setting closes")
        #expect(after.wrong.isEmpty, "confirmed on the other's place: seeds \(after.wrong)")
        #expect(after.rejected > 0)
    }

    @Test("recordings made before the setting read it as off; the weight is decoded")
    func decodesAsOffWhenMissing() throws {
        let old = try JSONDecoder().decode(LightCheckConfig.self, from: Data("{}".utf8))
        #expect(!old.occupiedPlaces)
        #expect(LightCheckConfig().occupiedPlaces)
        let set = try JSONDecoder().decode(LightCheckConfig.self, from: Data(#"{"occupiedPlaces": true, "occupiedWeight": 0.8}"#.utf8))
        #expect(set.occupiedPlaces && set.occupiedWeight == 0.8)
        #expect(!old.explainOtherPlaces && LightCheckConfig().explainOtherPlaces)
        // A need written before `otherPlaces` existed reads them as empty.
        let need = VerificationNeed(tangible: 1, request: 7, kind: .identify, hypotheses: [], footprint: .circle(radius: 30),
                                    otherPlaces: [Vec2(1, 2)])
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(need)) as! [String: Any]
        #expect(try JSONDecoder().decode(VerificationNeed.self, from: JSONEncoder().encode(need)) == need)
        json["otherPlaces"] = nil
        let older = try JSONDecoder().decode(VerificationNeed.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(older.otherPlaces.isEmpty && older.request == 7)
    }
}
