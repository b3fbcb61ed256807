// The engine and the light-check scheduler stepped frame by frame, as the service does, for replay.
import LightCheck
import MTKTangibles

/// Engine.step → LightCheckScheduler.plan → outcomes into the next step. Pure, so a
/// recording replays to the same results bit for bit. The live service (`EngineCore`) steps
/// through this same core, so live runs and replays cannot drift apart.
struct ReplayCore: Sendable {
    // internal(set): the service's EngineCore defines and calibrates through them.
    public internal(set) var engine: Engine
    public internal(set) var scheduler: LightCheckScheduler
    private var outcomes: [VerificationOutcome] = []

    public init(definitions: [TangibleDefinition], engineConfig: EngineConfig = EngineConfig(),
                lightCheckConfig: LightCheckConfig = LightCheckConfig()) {
        engine = Engine(config: engineConfig, definitions: definitions)
        scheduler = LightCheckScheduler(config: lightCheckConfig)
    }

    /// Brings the engine's definitions in line with `definitions` (a recorded `definitions`
    /// entry, or the service's registry): removes, then adds or replaces in id order.
    public mutating func setDefinitions(_ definitions: [TangibleDefinition]) {
        let current = Dictionary(engine.definitions.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let wanted = Dictionary(definitions.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for id in current.keys.sorted() where wanted[id] == nil { _ = engine.remove(id) }
        for (id, d) in wanted.sorted(by: { $0.key < $1.key }) {
            if let old = current[id] {
                if old != d { try? engine.replace(d) }
            } else {
                try? engine.add(d)
            }
        }
    }

    /// Applies a recorded change before a frame (definitions, or a calibration command).
    public mutating func apply(_ change: RecordingSchedule.Change) {
        switch change {
        case .definitions(let d): setDefinitions(d)
        case .calibration(let c): apply(c)
        }
    }

    /// Starts or cancels LightCheck's offset search as the control API did live (the service's
    /// EngineCore calls this too). Returns false when a start cannot apply: the tangible is
    /// not defined, has no pose in the command, or is being calibrated already.
    @discardableResult
    public mutating func apply(_ c: CalibrationCommand) -> Bool {
        switch c.action {
        case .start:
            guard let pose = c.pose, let d = engine.definitions.first(where: { $0.id == c.tangible }) else { return false }
            return scheduler.startCalibration(CalibrationRequest(tangible: c.tangible, pose: pose, footprint: d.footprint), at: c.time)
        case .cancel:
            scheduler.cancelCalibration(tangible: c.tangible, at: c.time)
            return true
        }
    }

    /// One frame: the engine's output and the scheduler's plan (whose outcomes go into the
    /// next frame's engine step).
    public mutating func advance(_ frame: Frame) -> (output: EngineOutput, plan: LightCheckPlan) {
        let out = engine.step(frame, outcomes: outcomes)
        let plan = scheduler.plan(needs: out.needs, frame: frame)
        outcomes = plan.outcomes
        return (out, plan)
    }

    public mutating func step(_ frame: Frame) -> ReplayStep {
        let (out, plan) = advance(frame)
        return ReplayStep(frame: frame.number, engine: out, overlay: plan.overlay, outcomes: plan.outcomes)
    }
}
