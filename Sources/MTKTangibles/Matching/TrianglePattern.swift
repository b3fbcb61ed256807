// A marker triangle of any shape, and how well three or two surface points fit it.

/// The three markers of a definition (own frame, centred on their centroid) with the
/// geometry the matcher needs. Any triangle works: scalene, obtuse, near-equilateral.
/// Fits are rigid (rotation and translation, no mirroring: a tangible cannot be flipped
/// onto its markers).
public struct TrianglePattern: Hashable, Sendable {
    public let markers: [Vec2]
    /// Side lengths: `side(i, j)` between markers i and j.
    private let sides: [Double]
    public let longestSide: Double
    public let shortestSide: Double
    /// A key under which definitions with the same marker pattern share matching work.
    let key: [Int64]

    public init(markers: [Vec2]) {
        precondition(markers.count == 3, "a pattern has exactly three markers")
        let c = (markers[0] + markers[1] + markers[2]) / 3
        self.markers = markers.map { $0 - c }
        sides = [markers[0].distance(to: markers[1]), markers[1].distance(to: markers[2]), markers[2].distance(to: markers[0])]
        longestSide = sides.max()!
        shortestSide = sides.min()!
        key = self.markers.flatMap { [Int64(($0.x * 100).rounded()), Int64(($0.y * 100).rounded())] }
    }

    public init(_ definition: TangibleDefinition) { self.init(markers: definition.markers) }

    public func side(_ i: Int, _ j: Int) -> Double {
        switch (min(i, j), max(i, j)) {
        case (0, 1): return sides[0]
        case (1, 2): return sides[1]
        default: return sides[2]
        }
    }

    /// The six ways to give three points to the three markers: `perms[k][marker] = point`.
    static let perms: [[Int]] = [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [2, 1, 0], [1, 0, 2]]

    /// The best rigid fit of three points, if one fits within `tolerance` (mm, the largest
    /// marker displacement). `assignment[marker]` is the index of the point on that marker.
    public func fit(_ p: [Vec2], tolerance: Double) -> (assignment: [Int], pose: Pose, residual: Double)? {
        guard let f = fit(p[0], p[1], p[2], tolerance: tolerance) else { return nil }
        return (Self.perms[f.perm], f.pose, f.residual)
    }

    /// The best rigid fit of three points without allocating: `Self.perms[perm]` is the
    /// assignment (`perms[perm][marker]` = point).
    func fit(_ p0: Vec2, _ p1: Vec2, _ p2: Vec2, tolerance: Double) -> (perm: Int, pose: Pose, residual: Double)? {
        let d01 = p0.distance(to: p1), d12 = p1.distance(to: p2), d20 = p2.distance(to: p0)
        let s0 = sides[0], s1 = sides[1], s2 = sides[2]
        let lim = 2 * tolerance
        var best: (perm: Int, pose: Pose, residual: Double)?
        // Side lengths first: cheap, and a side error above 2·tolerance rules the fit out.
        // Orders as in `perms`: (p0 p1 p2), (p1 p2 p0), (p2 p0 p1), (p0 p2 p1), (p2 p1 p0), (p1 p0 p2).
        @inline(__always) func tryOrder(_ k: Int, _ a: Vec2, _ b: Vec2, _ c: Vec2, _ ab: Double, _ bc: Double, _ ca: Double) {
            guard abs(ab - s0) <= lim, abs(bc - s1) <= lim, abs(ca - s2) <= lim else { return }
            let f = fit(a, b, c)
            if f.residual <= tolerance, f.residual < (best?.residual ?? .infinity) { best = (k, f.pose, f.residual) }
        }
        tryOrder(0, p0, p1, p2, d01, d12, d20)
        tryOrder(1, p1, p2, p0, d12, d20, d01)
        tryOrder(2, p2, p0, p1, d20, d01, d12)
        tryOrder(3, p0, p2, p1, d20, d12, d01)
        tryOrder(4, p2, p1, p0, d12, d01, d20)
        tryOrder(5, p1, p0, p2, d01, d20, d12)
        return best
    }

    /// Rigid fit with a known assignment: `q[marker]` is the point on that marker.
    public func fit(_ q: [Vec2]) -> (pose: Pose, residual: Double) {
        let f = fit(q[0], q[1], q[2])
        return (f.pose, f.residual)
    }

    /// Rigid fit of three points on markers 0, 1, 2 without allocating: the pose, the
    /// largest marker displacement and the RMS displacement (one atan2, one sin/cos).
    func fit(_ q0: Vec2, _ q1: Vec2, _ q2: Vec2) -> (pose: Pose, residual: Double, rms: Double) {
        let c = Vec2((q0.x + q1.x + q2.x) / 3, (q0.y + q1.y + q2.y) / 3)
        let r0 = q0 - c, r1 = q1 - c, r2 = q2 - c
        let m0 = markers[0], m1 = markers[1], m2 = markers[2]
        let s = m0.cross(r0) + m1.cross(r1) + m2.cross(r2)
        let k = m0.dot(r0) + m1.dot(r1) + m2.dot(r2)
        let angle = atan2(s, k)
        let cs = cos(angle), sn = sin(angle)
        @inline(__always) func off(_ m: Vec2, _ r: Vec2) -> Double {
            let dx = m.x * cs - m.y * sn - r.x, dy = m.x * sn + m.y * cs - r.y
            return dx * dx + dy * dy
        }
        let e0 = off(m0, r0), e1 = off(m1, r1), e2 = off(m2, r2)
        return (Pose(position: c, angle: angle), max(e0, e1, e2).squareRoot(), ((e0 + e1 + e2) / 3).squareRoot())
    }

    /// Pose from two points on known markers `i` and `j`, and the side-length error.
    public func fit(_ a: Vec2, onMarker i: Int, _ b: Vec2, onMarker j: Int) -> (pose: Pose, error: Double) {
        let m = markers[j] - markers[i], d = b - a
        let angle = atan2(d.y, d.x) - atan2(m.y, m.x)
        let mid = (a + b) / 2, localMid = (markers[i] + markers[j]) / 2
        let pose = Pose(position: mid - localMid.rotated(by: angle), angle: angle)
        return (pose, abs(d.length - m.length))
    }

    /// Every pose two points can have on this pattern within `tolerance` of a side's length:
    /// two per matching side (the points swapped). For the standard PERC a hypotenuse gives
    /// 2, a leg 4 (thesis Fig. 3.13, 3.14).
    public func tuplePoses(_ a: Vec2, _ b: Vec2, tolerance: Double) -> [(markers: (Int, Int), pose: Pose)] {
        let d = a.distance(to: b)
        var out: [(markers: (Int, Int), pose: Pose)] = []
        for (i, j) in [(0, 1), (1, 2), (2, 0)] where abs(d - side(i, j)) <= tolerance {
            out.append(((i, j), fit(a, onMarker: i, b, onMarker: j).pose))
            out.append(((j, i), fit(a, onMarker: j, b, onMarker: i).pose))
        }
        return out
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
