// One pipeline step's result, as the outputs receive it.
import MTKTangibles

/// One pipeline step's result, as the outputs receive it.
public struct FrameResult: Sendable {
    public var snapshot: SurfaceSnapshot
    /// The overlay to show from now on, if it changed this step.
    public var overlay: Overlay?
    /// Light-check outcomes decided this step (for metrics and logs).
    public var outcomes: [VerificationOutcome] = []
    /// Tangibles recognised anew this step.
    public var recognitions: [TangibleID] = []
    /// Calibrations the control API started or cancelled before this step (for `--record`).
    public var schedulerCommands: [SchedulerCommand] = []
    /// When time alone can next change the result (`EngineCore.wake`): the event clock's
    /// next deadline without input.
    public var wake: Wake = .everyFrame
}
