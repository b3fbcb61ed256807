// What plans light checks frame by frame: the scheduler, or a baseline a benchmark compares it with.
import MTKTangibles

/// Plans light checks frame by frame. ``LightCheckScheduler`` is the one the service runs;
/// benchmarks implement baselines (e.g. the thesis's one-candidate-at-a-time checks) to run in
/// the same frame core (`FrameCore`) or rig (`LightCheckRig`).
public protocol LightCheckPlanning {
    mutating func plan(needs: [VerificationNeed], frame: Frame) -> LightCheckPlan
    /// When time alone can next change its decisions, after its last plan.
    var wake: Wake { get }
}

extension LightCheckPlanning {
    /// A baseline that does not say: every frame.
    public var wake: Wake { .everyFrame }
}

extension LightCheckScheduler: LightCheckPlanning {}
