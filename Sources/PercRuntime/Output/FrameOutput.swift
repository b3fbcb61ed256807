// Anything that sends the pipeline's per-frame results somewhere (TUIO, apps, D-Bus).
import MTKTangibles

/// Called on the pipeline's task after each step; must not block (hand off and return).
public protocol FrameOutput: Sendable {
    func publish(_ result: FrameResult)
}
