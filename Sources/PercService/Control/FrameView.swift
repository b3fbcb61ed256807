// What the control API's waiting calls see after each frame.
import LightCheck

/// What a waiter sees after each frame: the pipeline (inside its lock) and the calibration
/// results that frame produced.
struct FrameView {
    let pipeline: Pipeline
    let calibrations: [CalibrationResult]
}
