// `bench service`: where the bench's fingers and PERC marker triples sit on the surface.
import Foundation
import MTKTangibles

/// Fingers on a 60 mm grid in the left part of the surface, PERCs on a 110 mm grid in the
/// right part. 60 mm is more than a standard PERC's hypotenuse (42.4 mm) plus tolerance, and
/// all fingers circle in phase, so no two or three fingers ever fit a PERC's marker pattern:
/// the engine's only tangibles are the PERCs the bench places.
enum BenchLayout {
    static let surface = Vec2(1018, 573)
    static let maxFingers = 64
    static let maxPercs = 20
    /// Radius and frequency of each finger's circle (a moving finger, as on a real table).
    static let circleRadius = 8.0
    static let circleHz = 0.5

    static func finger(_ i: Int, at time: Seconds) -> Vec2 {
        let centre = Vec2(50 + Double(i % 8) * 60, 50 + Double(i / 8) * 60)
        let a = 2 * Double.pi * circleHz * time
        return Vec2(centre.x + circleRadius * cos(a), centre.y + circleRadius * sin(a))
    }

    /// The marker triple of PERC `k` (0-based): a standard PERC (right isosceles, 30 mm legs).
    static func markers(ofPerc k: Int) -> [Vec2] {
        let origin = Vec2(580 + Double(k % 4) * 110, 50 + Double(k / 4) * 100)
        return [origin, Vec2(origin.x + 30, origin.y), Vec2(origin.x, origin.y + 30)]
    }
}
