// What the control API's waiting calls see after each frame.
import LightCheck

/// What a waiter sees after each frame: the pipeline (inside its lock) and the calibration
/// results that frame produced.
public struct FrameView {
    public let pipeline: Pipeline
    public let calibrations: [CalibrationResult]
}
