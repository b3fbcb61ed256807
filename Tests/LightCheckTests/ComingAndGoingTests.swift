// A hypothesis the engine offers one frame and not the next is still weighed by every round.
import Foundation
import Testing
import MTKTangibles
@testable import LightCheck

@Suite struct ComingAndGoingTests {
    static func hypothesis(_ id: Int, at p: Vec2) -> Hypothesis {
        Hypothesis(id: id, pose: Pose(position: p - Vec2(5, 0), angle: 0), sensorPosition: p, traces: [])
    }

    /// Frames until the check of a sensor that never answers (it lies elsewhere) is rejected,
    /// when two of the engine's pairs come and go every frame (a pair near the tolerance of two
    /// sides of the pattern: `bench accuracy --seed 2 --show 193`, ids 4 / 5 and 6 / 7) or stay.
    static func rejectedAfter(alternating: Bool, config: LightCheckConfig = LightCheckConfig()) -> Double? {
        var s = LightCheckScheduler(config: config)
        let steady = [hypothesis(0, at: Vec2(200, 200)), hypothesis(1, at: Vec2(300, 200))]
        let one = steady + [hypothesis(4, at: Vec2(400, 200)), hypothesis(5, at: Vec2(500, 200))]
        let other = steady + [hypothesis(6, at: Vec2(403, 200)), hypothesis(7, at: Vec2(503, 200))]
        var t = 0.0
        for n in 0..<1200 {
            let hs = alternating && n % 2 == 1 ? other : one
            let need = VerificationNeed(tangible: 1, request: 1, kind: .identify, hypotheses: hs,
                                        footprint: .circle(radius: 30), velocity: .zero, isMoving: false)
            let events = n == 0 ? [SensorEvent(tangible: 1, kind: .light, value: 0, arrival: 0)] : []
            let plan = s.plan(needs: [need], sensorEvents: events,
                              presented: [PresentedOverlay(overlayID: s.overlay.id, from: t)], at: t)
            if let o = plan.outcomes.first {
                return o.result == .rejected ? t : nil
            }
            t += 1.0 / 120
        }
        return nil
    }

    @Test("pairs that come and go every frame are rejected by silent rounds as soon as pairs that stay")
    func silentRoundsWeighTheHypothesesLeftOutThisFrame() throws {
        let stay = try #require(Self.rejectedAfter(alternating: false), "the steady check was never rejected")
        let come = try #require(Self.rejectedAfter(alternating: true), "the check whose pairs come and go was never rejected")
        // 1.14 s against 0.81 s (the newcomers' first share of "none" costs two rounds);
        // without `evidenceByPlace`, 1.49 s.
        #expect(come <= stay * 1.5 + 0.1, "rejected after \(come) s against \(stay) s with the pairs staying")
        var old = LightCheckConfig()
        old.evidenceByPlace = false
        let before = try #require(Self.rejectedAfter(alternating: true, config: old))
        #expect(before > come, "without evidenceByPlace: \(before) s, with it: \(come) s")
    }

    @Test func recordingsMadeBeforeItReadItAsOff() throws {
        let old = try JSONDecoder().decode(LightCheckConfig.self, from: Data("{}".utf8))
        #expect(!old.evidenceByPlace && LightCheckConfig().evidenceByPlace)
    }
}
