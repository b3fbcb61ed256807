// Drives a scheduler by hand: time moves only when a test advances it, events are typed in.
import MTKTangibles
@testable import LightCheck

/// A scheduler fed with hand-made frames at 120 Hz. Tests say what the sensor reports and
/// when the app presented an overlay, then look at the plan.
struct HandDriver {
    static let frame: Seconds = 1.0 / 120
    var scheduler: LightCheckScheduler
    var time: Seconds = 0
    var needs: [VerificationNeed] = []
    var outcomes: [VerificationOutcome] = []
    var last: LightCheckPlan?

    init(config: LightCheckConfig = .init()) { scheduler = LightCheckScheduler(config: config) }

    /// One frame at `time` (default: one frame after the previous one).
    @discardableResult
    mutating func step(at t: Seconds? = nil, light: [(TangibleID, Int)] = [], presented: [PresentedOverlay] = [],
                       events: [SensorEvent] = []) -> LightCheckPlan {
        time = t ?? (last == nil ? time : time + Self.frame)
        let lightEvents = light.map { SensorEvent(tangible: $0.0, kind: .light, value: $0.1, arrival: time) }
        let plan = scheduler.plan(needs: needs, sensorEvents: lightEvents + events, presented: presented, at: time)
        outcomes += plan.outcomes
        last = plan
        return plan
    }

    /// Reports the current overlay as presented now.
    mutating func presentNow() -> LightCheckPlan {
        step(at: time, presented: [PresentedOverlay(overlayID: scheduler.overlay.id, from: time)])
    }

    /// Steps frame by frame up to (and including) `end`, with nothing happening.
    mutating func idle(until end: Seconds) {
        while time + Self.frame <= end + 1e-12 { step() }
    }

    /// A standard-PERC need with candidate sensor positions `positions` (hypothesis ids 0...).
    static func need(tangible: TangibleID = 1, request: UInt64 = 7, kind: VerificationNeed.Kind = .identify,
                     at positions: [Vec2], velocity: Vec2 = .zero) -> VerificationNeed {
        let hs = positions.enumerated().map { n, p in
            Hypothesis(id: n, pose: Pose(position: p - Vec2(5, 0), angle: 0), sensorPosition: p, traces: [])
        }
        return VerificationNeed(tangible: tangible, request: request, kind: kind, hypotheses: hs,
                                footprint: .circle(radius: 30), velocity: velocity, isMoving: velocity.length > 0)
    }
}
