// The pure part of a pipeline step: a frame in, fused state and the next overlay out.
import MTKTangibles

/// What turns a frame into tangible state: the engine plus the light-check scheduler
/// (`EngineCore`), or a stand-in. Deterministic; no I/O.
protocol FrameCore {
    mutating func step(_ frame: Frame) -> FrameResult
    /// The registry changed (definitions added, forgotten, recalibrated).
    mutating func setDefinitions(_ definitions: [TangibleDefinition])
}

/// One step's result, for the outputs.
struct FrameResult: Sendable {
    var snapshot: SurfaceSnapshot
    /// The overlay to show from now on, if it changed this step.
    var overlay: Overlay?
    /// Light-check outcomes decided this step (for metrics and logs).
    var outcomes: [VerificationOutcome] = []
    /// Tangibles recognised anew this step.
    var recognitions: [TangibleID] = []
}
