// The thesis's matching, as the baseline of `bench engine`: every triple and pair of available traces.

import MTKTangibles

/// Per frame, as the MTK did it (thesis 3.3.1/3.3.2): positions are updated by contact id;
/// every tangible that is not recognised scans all triples (and, searching with light
/// checks, all pairs) of the traces no tangible uses, checking the three side lengths in
/// all six marker orders; every recognised tangible runs its deformation check. It is
/// given the engine's own view of who holds which trace in that frame, so both do the same
/// job on the same input.
struct NaiveMatcher {
    private var positions: [Int64: Vec2] = [:]
    let tolerance: Double
    /// Fits found in the last frame (kept so the work cannot be optimised away).
    private(set) var fits = 0

    init(tolerance: Double) { self.tolerance = tolerance }

    mutating func step(_ frame: Frame, held: Set<Int64>, searching: [TangibleDefinition],
                       tracked: [(TangibleDefinition, [Int64])]) {
        for c in frame.contacts {
            if c.phase == .end { positions[c.contactID] = nil } else { positions[c.contactID] = c.position }
        }
        var free: [Vec2] = []
        free.reserveCapacity(positions.count)
        for (id, p) in positions where !held.contains(id) { free.append(p) }
        fits = 0
        for d in searching {
            let s = sides(d.markers)
            let n = free.count
            if n >= 3 {
                for a in 0..<(n - 2) {
                    for b in (a + 1)..<(n - 1) {
                        let dab = free[a].distance(to: free[b])
                        for c in (b + 1)..<n {
                            if fitsSides(dab, free[b].distance(to: free[c]), free[c].distance(to: free[a]), s) { fits += 1 }
                        }
                    }
                }
            }
            if n >= 2 {
                for a in 0..<(n - 1) {
                    for b in (a + 1)..<n {
                        let d = free[a].distance(to: free[b])
                        for side in s where abs(d - side) <= tolerance { fits += 1 }
                    }
                }
            }
        }
        for (d, traces) in tracked {
            let s = sides(d.markers)
            let q = traces.compactMap { positions[$0] }
            if q.count == 3, !fitsSides(q[0].distance(to: q[1]), q[1].distance(to: q[2]), q[2].distance(to: q[0]), s) { fits += 1 }
        }
    }

    private func sides(_ m: [Vec2]) -> [Double] {
        [m[0].distance(to: m[1]), m[1].distance(to: m[2]), m[2].distance(to: m[0])]
    }

    /// Whether the sides (ab, bc, ca) match the pattern's sides in any of the six orders.
    private func fitsSides(_ ab: Double, _ bc: Double, _ ca: Double, _ s: [Double]) -> Bool {
        let d = [ab, bc, ca]
        for p in [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [2, 1, 0], [1, 0, 2]] {
            if abs(d[p[0]] - s[0]) <= tolerance && abs(d[p[1]] - s[1]) <= tolerance && abs(d[p[2]] - s[2]) <= tolerance {
                return true
            }
        }
        return false
    }
}
