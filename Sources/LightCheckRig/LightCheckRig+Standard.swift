// Standard rig scenarios: standard PERCs placed apart, one identify need each with k candidates.
import LightCheck
import MTKTangibles
import MTKSimulator

extension LightCheckRig {
    /// Where standard scenario tangible `id` (1, 2, ...) lies: 150 mm apart, turned differently.
    public static func standardPose(of id: TangibleID) -> Pose {
        Pose(position: Vec2(200 + 150 * Double(id - 1), 200), angle: 0.35 + 0.5 * Double(id))
    }

    /// A seeded scenario: `tangibles` standard PERCs (ids 1...) placed at time 0, each with
    /// one identify need (request 100 + id) of `k` candidates (``RigCheck/candidatePoses(k:markers:rng:)``)
    /// posed from `from` on.
    public static func standard(seed: UInt64, k: Int, tangibles: Int = 1, planner: Planner,
                                model: HardwareModel = HardwareModel(), from: Seconds = 0.5) -> LightCheckRig {
        var world = SimWorld(seed: seed, model: model)
        var rng = SimRandom(seed: seed ^ 0x5EED_11C7)
        var checks: [RigCheck] = []
        for id in 1...max(1, tangibles) {
            let def = TangibleDefinition.standardPerc(id: id, name: "perc\(id)")
            world.add(def)
            world.place(id, at: standardPose(of: id))
            let c = RigCheck.candidatePoses(k: k, markers: def.markers, rng: &rng)
            checks.append(RigCheck(tangible: id, request: UInt64(100 + id), relativePoses: c.poses, trueIndex: c.trueIndex, from: from))
        }
        return LightCheckRig(world: world, planner: planner, checks: checks)
    }
}
