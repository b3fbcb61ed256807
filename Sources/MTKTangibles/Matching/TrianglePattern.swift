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
        let d01 = p[0].distance(to: p[1]), d12 = p[1].distance(to: p[2]), d20 = p[2].distance(to: p[0])
        func dist(_ a: Int, _ b: Int) -> Double {
            switch (min(a, b), max(a, b)) { case (0, 1): return d01; case (1, 2): return d12; default: return d20 }
        }
        var best: (assignment: [Int], pose: Pose, residual: Double)?
        for perm in Self.perms {
            // Side lengths first: cheap, and a side error above 2·tolerance rules the fit out.
            if abs(dist(perm[0], perm[1]) - sides[0]) > 2 * tolerance { continue }
            if abs(dist(perm[1], perm[2]) - sides[1]) > 2 * tolerance { continue }
            if abs(dist(perm[2], perm[0]) - sides[2]) > 2 * tolerance { continue }
            let (pose, residual) = fit([p[perm[0]], p[perm[1]], p[perm[2]]])
            if residual <= tolerance, residual < (best?.residual ?? .infinity) { best = (perm, pose, residual) }
        }
        return best
    }

    /// Rigid fit with a known assignment: `q[marker]` is the point on that marker.
    public func fit(_ q: [Vec2]) -> (pose: Pose, residual: Double) {
        let c = (q[0] + q[1] + q[2]) / 3
        var s = 0.0, k = 0.0
        for i in 0..<3 {
            let r = q[i] - c
            s += markers[i].cross(r); k += markers[i].dot(r)
        }
        let pose = Pose(position: c, angle: atan2(s, k))
        var residual = 0.0
        for i in 0..<3 { residual = max(residual, pose.apply(markers[i]).distance(to: q[i])) }
        return (pose, residual)
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
