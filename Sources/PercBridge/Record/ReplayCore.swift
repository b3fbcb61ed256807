// The engine and the light-check scheduler stepped frame by frame, as the service does, for replay.
import LightCheck
import MTKTangibles

/// Engine.step → LightCheckScheduler.plan → outcomes into the next step. Pure, so a
/// recording replays to the same results bit for bit. The live service can use the same
/// core and write `step.digest` with `Recorder.record(result:frame:)` for replay to compare.
public struct ReplayCore: Sendable {
    public private(set) var engine: Engine
    public private(set) var scheduler: LightCheckScheduler
    private var outcomes: [VerificationOutcome] = []

    public init(definitions: [TangibleDefinition], engineConfig: EngineConfig = EngineConfig(),
                lightCheckConfig: LightCheckConfig = LightCheckConfig()) {
        engine = Engine(config: engineConfig, definitions: definitions)
        scheduler = LightCheckScheduler(config: lightCheckConfig)
    }

    /// Definitions changed (a recorded `definitions` entry): added, replaced, removed.
    public mutating func setDefinitions(_ defs: [TangibleDefinition]) {
        let ids = Set(defs.map(\.id))
        for old in engine.definitions where !ids.contains(old.id) { _ = engine.remove(old.id) }
        let known = Set(engine.definitions.map(\.id))
        for d in defs {
            if known.contains(d.id) { try? engine.replace(d) } else { try? engine.add(d) }
        }
    }

    public mutating func step(_ frame: Frame) -> ReplayStep {
        let out = engine.step(frame, outcomes: outcomes)
        let plan = scheduler.plan(needs: out.needs, frame: frame)
        outcomes = plan.outcomes
        return ReplayStep(frame: frame.number, engine: out, overlay: plan.overlay, outcomes: plan.outcomes)
    }
}
