// The thesis's matching, as the baseline of `bench engine`: every triple and pair of available traces.

import MTKTangibles

/// Per frame, as the MTK did it (thesis 3.3.1/3.3.2): positions are updated by contact id;
/// every tangible that is not recognised scans all triples (and, searching with light
/// checks, all pairs) of the traces no tangible uses, checking the three side lengths in
/// all six marker orders; every recognised tangible runs its deformation check. It is
/// given the engine's own view of who holds which trace in that frame, so both do the same
/// job on the same input.
///
/// Written to be a fair baseline: no allocation in the loops (sides are a tuple, the six
/// orders are unrolled), distances on plain doubles (no cross-module calls), each pair's
/// distance computed once per outer pair, and a side test that stops at the first miss.
struct NaiveMatcher {
    private var positions: [Int64: Vec2] = [:]
    let tolerance: Double
    /// Fits found in the last frame (kept so the work cannot be optimised away).
    private(set) var fits = 0
    private var free: [Vec2] = []

    init(tolerance: Double) { self.tolerance = tolerance }

    mutating func step(_ frame: Frame, held: Set<Int64>, searching: [TangibleDefinition],
                       tracked: [(TangibleDefinition, [Int64])]) {
        for c in frame.contacts {
            if c.phase == .end { positions[c.contactID] = nil } else { positions[c.contactID] = c.position }
        }
        free.removeAll(keepingCapacity: true)
        for (id, p) in positions where !held.contains(id) { free.append(p) }
        var fits = 0
        let tol = tolerance
        for d in searching {
            let s = Self.sides(d.markers)
            let n = free.count
            free.withUnsafeBufferPointer { f in
                if n >= 3 {
                    for a in 0..<(n - 2) {
                        for b in (a + 1)..<(n - 1) {
                            let dab = Self.dist(f[a], f[b])
                            for c in (b + 1)..<n where Self.fitsSides(dab, Self.dist(f[b], f[c]), Self.dist(f[c], f[a]), s, tol) {
                                fits += 1
                            }
                        }
                    }
                }
                if n >= 2 {
                    for a in 0..<(n - 1) {
                        for b in (a + 1)..<n {
                            let d = Self.dist(f[a], f[b])
                            if abs(d - s.0) <= tol { fits += 1 }
                            if abs(d - s.1) <= tol { fits += 1 }
                            if abs(d - s.2) <= tol { fits += 1 }
                        }
                    }
                }
            }
        }
        for (d, traces) in tracked where traces.count == 3 {
            let s = Self.sides(d.markers)
            guard let p0 = positions[traces[0]], let p1 = positions[traces[1]], let p2 = positions[traces[2]] else { continue }
            if !Self.fitsSides(Self.dist(p0, p1), Self.dist(p1, p2), Self.dist(p2, p0), s, tol) { fits += 1 }
        }
        self.fits = fits
    }

    @inline(__always)
    private static func dist(_ a: Vec2, _ b: Vec2) -> Double {
        let dx = a.x - b.x, dy = a.y - b.y
        return (dx * dx + dy * dy).squareRoot()
    }

    private static func sides(_ m: [Vec2]) -> (Double, Double, Double) {
        (dist(m[0], m[1]), dist(m[1], m[2]), dist(m[2], m[0]))
    }

    /// Whether the sides (ab, bc, ca) match the pattern's sides (s0 = m0m1, s1 = m1m2,
    /// s2 = m2m0) in any of the six marker orders.
    @inline(__always)
    private static func fitsSides(_ ab: Double, _ bc: Double, _ ca: Double, _ s: (Double, Double, Double), _ t: Double) -> Bool {
        func ok(_ x: Double, _ y: Double, _ z: Double) -> Bool {
            abs(x - s.0) <= t && abs(y - s.1) <= t && abs(z - s.2) <= t
        }
        // Points (a, b, c) on markers in the orders (0 1 2), (1 2 0), (2 0 1) keep the
        // cycle; (0 2 1), (2 1 0), (1 0 2) reverse it.
        return ok(ab, bc, ca) || ok(bc, ca, ab) || ok(ca, ab, bc)
            || ok(ca, bc, ab) || ok(bc, ab, ca) || ok(ab, ca, bc)
    }
}
