// A command to LightCheck's scheduler between two frames (a calibration, a light test's patches), as the core applied it (for replay).
import LightCheck
import MTKTangibles

/// `percbridge calibrate` and `define` start LightCheck's offset search between two frames;
/// a failed or abandoned call cancels it. `diagnose --light-test` asks the scheduler to show
/// its patches for a tangible, and to take them off at the end. Each changes what the
/// scheduler draws, so a recording holds each with the frame after which the core applied
/// it (`calibration` kind, the name it had when calibrations were the only commands), and
/// replay applies it at the same place (`ReplayCore.apply`).
public struct SchedulerCommand: Codable, Hashable, Sendable {
    public enum Action: String, Codable, Sendable {
        /// Start (with `pose`) or cancel an offset search.
        case start, cancel
        /// Show `patches` for the tangible (a light test), or take them off (`patches` nil).
        case testPatches
    }

    public var action: Action
    public var tangible: TangibleID
    /// The last frame the core had stepped when the command was applied (0: none yet): it
    /// takes effect before frame `afterFrame + 1`.
    var afterFrame: UInt64
    /// The scheduler's time argument (the last frame's time).
    public var time: Seconds
    /// Where the search looks (start only): the tracked pose, or the pose define measured.
    public var pose: Pose?
    /// What to show (testPatches only; nil takes the test's patches off).
    public var patches: [Patch]?

    public init(action: Action, tangible: TangibleID, afterFrame: UInt64, time: Seconds, pose: Pose? = nil, patches: [Patch]? = nil) {
        self.action = action; self.tangible = tangible; self.afterFrame = afterFrame; self.time = time; self.pose = pose
        self.patches = patches
    }
}
