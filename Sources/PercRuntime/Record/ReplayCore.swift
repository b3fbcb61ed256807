// The engine and the light-check scheduler stepped frame by frame, as the service does, for replay.
import FrameCore
import LightCheck
import MTKTangibles

/// The service's frame core (FrameCore's loop with the light-check scheduler), as `replay`,
/// `serve` (through `EngineCore`) and the diagnosis step it: recorded changes (definitions,
/// calibration commands) are applied before the frame they came with.
public typealias ReplayCore = FrameCore<LightCheckScheduler>

extension FrameCore where Planner == LightCheckScheduler {
    /// Brings the engine's definitions in line with `definitions` (a recorded `definitions`
    /// entry, or the service's registry): removes, then adds or replaces in id order.
    mutating func setDefinitions(_ definitions: [TangibleDefinition]) {
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

    /// Starts or cancels LightCheck's offset search as the control API did live, or shows a
    /// light test's patches (the service's EngineCore calls this too). Returns false when a
    /// start cannot apply (the tangible is not defined, has no pose in the command, or is
    /// being calibrated already), or test patches cannot (a calibration of it runs).
    @discardableResult
    mutating func apply(_ c: SchedulerCommand) -> Bool {
        switch c.action {
        case .start:
            guard let pose = c.pose, let d = engine.definitions.first(where: { $0.id == c.tangible }) else { return false }
            return scheduler.startCalibration(CalibrationRequest(tangible: c.tangible, pose: pose, footprint: d.footprint), at: c.time)
        case .cancel:
            scheduler.cancelCalibration(tangible: c.tangible, at: c.time)
            return true
        case .testPatches:
            return scheduler.showTestPatches(c.patches, for: c.tangible, at: c.time)
        }
    }

    mutating func step(_ frame: Frame) -> ReplayStep {
        let (out, plan) = advance(frame)
        return ReplayStep(frame: frame.number, engine: out, overlay: plan.overlay, outcomes: plan.outcomes)
    }
}
