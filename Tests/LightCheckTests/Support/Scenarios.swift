// Builders of simulated light-check scenarios shared by the scenario tests.
import MTKTangibles
import MTKSimulator
import LightCheck
import LightCheckRig

enum Scenarios {
    typealias Rig = LightCheckRig<LightCheckScheduler>

    /// A standard rig (``LightCheckRig/standard(seed:k:tangibles:planner:model:from:)``) with the scheduler.
    static func rig(seed: UInt64, k: Int, tangibles: Int = 1, config: LightCheckConfig = .init(),
                    model: HardwareModel = HardwareModel()) -> Rig {
        Rig.standard(seed: seed, k: k, tangibles: tangibles, planner: LightCheckScheduler(config: config), model: model)
    }
}
