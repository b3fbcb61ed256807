// One frame of the recogniser: the engine's step, then the light-check planner's, outcomes fed back.
import LightCheck
import MTKTangibles

/// The one place the frame loop is written: `Engine.step(frame, outcomes:)` with the outcomes
/// the planner decided last frame, then `planner.plan(needs:frame:)`. Pure and deterministic
/// (no I/O, no clock reads), so a recording replays to the same results bit for bit. `serve`
/// and `demo` (through the service's `EngineCore`), `replay`, `bench accuracy`, `bench
/// crowded` and the tests all step through it: none of them can drift from another.
public struct FrameCore<Planner: LightCheckPlanning> {
    public var engine: Engine
    public var planner: Planner
    /// The planner's decisions of the last frame, for the engine's next step.
    private var outcomes: [VerificationOutcome] = []

    /// The frame's next deadline, after the last step: when time alone can next change what
    /// a step decides — the earlier of the engine's and the planner's (every frame while
    /// outcomes wait for the engine's next step). An event-driven clock cuts no frame before
    /// it without input; stepping only then gives the same results as stepping every frame.
    public var wake: Wake {
        outcomes.isEmpty ? engine.wake.earliest(planner.wake) : .everyFrame
    }

    public init(engine: Engine, planner: Planner) {
        self.engine = engine
        self.planner = planner
    }

    /// One frame: the engine's output and the planner's plan (whose outcomes go into the next
    /// frame's engine step).
    public mutating func advance(_ frame: Frame) -> (output: EngineOutput, plan: LightCheckPlan) {
        let out = engine.step(frame, outcomes: outcomes)
        let plan = planner.plan(needs: out.needs, frame: frame)
        outcomes = plan.outcomes
        return (out, plan)
    }
}

extension FrameCore: Sendable where Planner: Sendable {}

extension FrameCore where Planner == LightCheckScheduler {
    /// The service's core: the engine with `definitions`, and the light-check scheduler.
    public init(definitions: [TangibleDefinition], engineConfig: EngineConfig = EngineConfig(),
                lightCheckConfig: LightCheckConfig = LightCheckConfig()) {
        self.init(engine: Engine(config: engineConfig, definitions: definitions),
                  planner: LightCheckScheduler(config: lightCheckConfig))
    }

    public var scheduler: LightCheckScheduler {
        get { planner }
        set { planner = newValue }
    }
}
