// A tangible's velocity and turn rate from its recent poses: a least-squares line over a window.
import Foundation
import MTKTangibles

/// Velocity (mm/s) and angular velocity (rad/s) of one tangible, fitted over the poses of the
/// last `window` seconds (at most `maxSamples`). A two-frame difference divides pose noise by
/// one frame interval — with event-driven frames that can be a millisecond — and predicted
/// poses built on it were worse than none (`bench predict`); a fit over ~60 ms is steady and
/// still follows a hand that changes direction.
struct PoseMotion {
    static let window: Seconds = 0.06
    static let maxSamples = 32

    private var samples: [(time: Seconds, x: Double, y: Double, angle: Double)] = []

    /// Adds the pose of the frame at `time` (frames come in time order) and forgets the old.
    mutating func add(_ pose: Pose, at time: Seconds) {
        if let last = samples.last, time <= last.time { samples.removeLast() }
        // The angle unwrapped against the previous sample, so a turn through ±π stays continuous.
        var angle = pose.angle
        if let last = samples.last { angle = last.angle + remainder(pose.angle - last.angle, 2 * Double.pi) }
        samples.append((time, pose.position.x, pose.position.y, angle))
        let oldest = time - Self.window
        if let keep = samples.firstIndex(where: { $0.time >= oldest }), keep > 0 {
            // Keep one sample at or before the window's start, so the fit spans the whole window.
            samples.removeFirst(keep - 1)
        }
        if samples.count > Self.maxSamples { samples.removeFirst(samples.count - Self.maxSamples) }
    }

    /// The slopes of x, y and angle over time (least squares); zero with fewer than two samples.
    var velocity: (linear: Vec2, angular: Double) {
        guard samples.count >= 2 else { return (.zero, 0) }
        let n = Double(samples.count)
        // Relative to the last sample (the fit does not change): a pose that did not move
        // gives exact zeros in every sum, so its velocity is exactly zero, not a rounding
        // residue (`EngineCore.wake` cuts frames while a velocity is not zero).
        let last = samples.last!
        var st = 0.0, stt = 0.0, sx = 0.0, sy = 0.0, sa = 0.0, stx = 0.0, sty = 0.0, sta = 0.0
        for s in samples {
            let t = s.time - last.time, x = s.x - last.x, y = s.y - last.y, a = s.angle - last.angle
            st += t; stt += t * t; sx += x; sy += y; sa += a
            stx += t * x; sty += t * y; sta += t * a
        }
        let d = n * stt - st * st
        guard d > 1e-12 else { return (.zero, 0) }
        return (Vec2((n * stx - st * sx) / d, (n * sty - st * sy) / d), (n * sta - st * sa) / d)
    }
}
