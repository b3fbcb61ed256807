// PoseMotion: the velocity behind predicted poses, from a least-squares fit over recent poses.
import Foundation
import MTKTangibles
import Testing
@testable import PercRuntime
import PercTestSupport

struct PoseMotionTests {
    /// A steady move sampled at irregular, sometimes 1 ms apart, event-driven frame times
    /// with ±0.3 mm of pose noise: the fitted velocity stays within 10 % of the truth, where a
    /// two-frame difference is off by up to 600 mm/s on the 1 ms steps.
    @Test func aSteadyMoveWithNoisyPosesGivesASteadyVelocity() {
        var m = PoseMotion()
        var rng = SplitMix64(seed: 7)
        var t = 0.0
        let v = Vec2(120, -80)
        var worstTwoFrame = 0.0
        var previous: (Vec2, Double)?
        for i in 0..<200 {
            t += [0.001, 0.004, 0.008, 0.0083][i % 4]
            let noise = Vec2(Double.random(in: -0.3...0.3, using: &rng), Double.random(in: -0.3...0.3, using: &rng))
            let p = Vec2(100, 100) + v * t + noise
            m.add(Pose(position: p, angle: 0.5), at: t)
            if let (q, at) = previous { worstTwoFrame = max(worstTwoFrame, ((p - q) / (t - at) - v).length) }
            previous = (p, t)
            if i > 20 { #expect((m.velocity.linear - v).length < 0.1 * v.length, "frame \(i): \(m.velocity.linear)") }
        }
        #expect(worstTwoFrame > 300)
    }

    /// A tangible lying still (a resting PERC's kept pose) at frame times far apart, as the
    /// event clock cuts them while nothing needs time: the velocity is exactly zero, not a
    /// rounding residue. (`EngineCore.wake` keeps frames coming every busy period while a
    /// velocity is not zero; a residue of 1e-13 mm/s kept a resting PERC's table at 10
    /// frames a second in a CI run.)
    @Test func aStillPoseHasExactlyZeroVelocity() {
        var rng = SplitMix64(seed: 3)
        for _ in 0..<200 {
            var m = PoseMotion()
            let pose = Pose(position: Vec2(Double.random(in: 0...800, using: &rng), Double.random(in: 0...500, using: &rng)),
                            angle: Double.random(in: -3...3, using: &rng))
            var t = Double.random(in: 1...5000, using: &rng)
            for _ in 0..<6 {
                t += [0.5, 0.0083, 0.004, 1.0][Int.random(in: 0...3, using: &rng)]
                m.add(pose, at: t)
                #expect(m.velocity.linear == .zero && m.velocity.angular == 0, "\(pose) at \(t): \(m.velocity)")
            }
        }
    }

    /// A tangible turning steadily through ±π: the angular velocity has no jump at the wrap.
    @Test func aTurnThroughPlusMinusPiStaysContinuous() {
        var m = PoseMotion()
        for i in 0..<100 {
            let t = Double(i) / 120
            let angle = remainder(3.0 + 2.0 * t, 2 * Double.pi)  // 2 rad/s, wraps at π
            m.add(Pose(position: Vec2(0, 0), angle: angle), at: t)
            if i > 2 { #expect(abs(m.velocity.angular - 2.0) < 1e-6, "frame \(i): \(m.velocity.angular)") }
        }
    }

    /// Only the window counts: after a stop, the velocity is zero again within the window.
    @Test func aStopIsSeenWithinTheWindow() {
        var m = PoseMotion()
        var t = 0.0
        for _ in 0..<30 { t += 0.008; m.add(Pose(position: Vec2(200 * t, 0), angle: 0), at: t) }
        #expect(abs(m.velocity.linear.x - 200) < 1)
        let stop = Vec2(200 * t, 0)
        for _ in 0..<10 { t += 0.008; m.add(Pose(position: stop, angle: 0), at: t) }
        #expect(m.velocity.linear.length < 1e-9)
        // A single sample or none: no velocity.
        var one = PoseMotion()
        #expect(one.velocity.linear == .zero)
        one.add(Pose(position: Vec2(1, 1), angle: 0), at: 1)
        #expect(one.velocity.linear == .zero && one.velocity.angular == 0)
    }
}
