// A light-sensor calibration started or cancelled through the control API, as the core applied it (for replay).
import LightCheck
import MTKTangibles

/// `percbridge calibrate` and `define` start LightCheck's offset search between two frames;
/// a failed or abandoned call cancels it. Both change what the scheduler draws, so a
/// recording holds each with the frame after which the core applied it (`calibration`
/// kind), and replay applies it at the same place (`ReplayCore.apply`).
public struct CalibrationCommand: Codable, Hashable, Sendable {
    public enum Action: String, Codable, Sendable { case start, cancel }

    public var action: Action
    public var tangible: TangibleID
    /// The last frame the core had stepped when the command was applied (0: none yet): it
    /// takes effect before frame `afterFrame + 1`.
    var afterFrame: UInt64
    /// The scheduler's time argument (the last frame's time).
    public var time: Seconds
    /// Where the search looks (start only): the tracked pose, or the pose define measured.
    public var pose: Pose?

    public init(action: Action, tangible: TangibleID, afterFrame: UInt64, time: Seconds, pose: Pose? = nil) {
        self.action = action; self.tangible = tangible; self.afterFrame = afterFrame; self.time = time; self.pose = pose
    }
}
