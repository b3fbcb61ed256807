// Plane geometry on the surface: millimetres, origin top-left, x right, y down (PROTOCOLS.md §3).

/// A point or a vector in millimetres.
public struct Vec2: Hashable, Sendable, Codable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
    public init(x: Double, y: Double) { self.x = x; self.y = y }

    public static let zero = Vec2(0, 0)

    public static func + (a: Vec2, b: Vec2) -> Vec2 { Vec2(a.x + b.x, a.y + b.y) }
    public static func - (a: Vec2, b: Vec2) -> Vec2 { Vec2(a.x - b.x, a.y - b.y) }
    public static func * (a: Vec2, s: Double) -> Vec2 { Vec2(a.x * s, a.y * s) }
    public static func / (a: Vec2, s: Double) -> Vec2 { Vec2(a.x / s, a.y / s) }
    public static prefix func - (a: Vec2) -> Vec2 { Vec2(-a.x, -a.y) }
    public static func += (a: inout Vec2, b: Vec2) { a = a + b }
    public static func -= (a: inout Vec2, b: Vec2) { a = a - b }

    public var length: Double { (x * x + y * y).squareRoot() }
    public var lengthSquared: Double { x * x + y * y }
    public func distance(to other: Vec2) -> Double { (self - other).length }
    public func dot(_ o: Vec2) -> Double { x * o.x + y * o.y }
    /// z of the 3-D cross product; positive when `o` is clockwise of `self` on screen (y down).
    public func cross(_ o: Vec2) -> Double { x * o.y - y * o.x }
    /// Rotated by `angle` radians, clockwise as seen on the screen (y down).
    public func rotated(by angle: Double) -> Vec2 {
        let c = cos(angle), s = sin(angle)
        return Vec2(x * c - y * s, x * s + y * c)
    }
    public var isFinite: Bool { x.isFinite && y.isFinite }
    public var description: String { "(\(x), \(y))" }
}

/// Where a tangible is: the centroid of its markers on the surface and its rotation.
public struct Pose: Hashable, Sendable, Codable, CustomStringConvertible {
    public var position: Vec2
    /// Radians, clockwise on screen (y down), normalised to [0, 2π).
    public var angle: Double

    public init(position: Vec2, angle: Double) {
        self.position = position
        self.angle = Pose.normalise(angle)
    }

    /// A point given in the tangible's own frame, placed on the surface.
    public func apply(_ local: Vec2) -> Vec2 { position + local.rotated(by: angle) }
    /// A surface point in the tangible's own frame.
    public func local(_ surface: Vec2) -> Vec2 { (surface - position).rotated(by: -angle) }

    public static func normalise(_ a: Double) -> Double {
        let twoPi = 2 * Double.pi
        var r = a.truncatingRemainder(dividingBy: twoPi)
        if r < 0 { r += twoPi }
        if r >= twoPi { r = 0 }
        return r
    }

    /// Smallest absolute difference between two angles, in [0, π].
    public static func angleDistance(_ a: Double, _ b: Double) -> Double {
        let d = abs(normalise(a) - normalise(b))
        return min(d, 2 * Double.pi - d)
    }

    public var description: String { "\(position) @ \(angle) rad" }
}

/// The area a tangible covers on the surface, in the tangible's own frame.
public enum Footprint: Hashable, Sendable, Codable {
    case circle(radius: Double)
    /// A convex polygon, vertices in order.
    case polygon([Vec2])

    /// The radius of the smallest disc around the tangible's origin that covers it.
    public var extent: Double {
        switch self {
        case .circle(let r): return max(0, r)
        case .polygon(let vs): return vs.map(\.length).max() ?? 0
        }
    }

    /// Whether a point (in the tangible's own frame) is covered, `margin` mm inside the edge.
    public func contains(_ p: Vec2, margin: Double = 0) -> Bool {
        switch self {
        case .circle(let r):
            return p.length <= r - margin
        case .polygon(let vs):
            guard vs.count >= 3 else { return false }
            var sign = 0.0
            for i in 0..<vs.count {
                let a = vs[i], b = vs[(i + 1) % vs.count]
                let edge = b - a
                let c = edge.cross(p - a)
                if sign == 0 { sign = c >= 0 ? 1 : -1 }
                if c * sign < 0 { return false }
                let dist = abs(c) / max(edge.length, 1e-12)
                if dist < margin { return false }
            }
            return true
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
