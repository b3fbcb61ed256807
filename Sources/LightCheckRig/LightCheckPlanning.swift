// What a light-check rig drives: the scheduler, or a baseline a benchmark compares it with.
import LightCheck
import MTKTangibles

/// Plans light checks frame by frame. ``LightCheckScheduler`` is one; benchmarks implement
/// baselines (e.g. the thesis's one-candidate-at-a-time checks) to run in the same rig.
public protocol LightCheckPlanning {
    mutating func plan(needs: [VerificationNeed], frame: Frame) -> LightCheckPlan
}

extension LightCheckScheduler: LightCheckPlanning {}
