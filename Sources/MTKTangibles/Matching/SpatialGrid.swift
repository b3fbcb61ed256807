// A uniform grid over trace positions, so that neighbour queries cost O(local density).

/// Points bucketed into square cells of `cellSize` mm. Built once per frame by sorting the
/// points by cell (no hashing, no per-cell allocation); a query visits the 3×3 cells around
/// a point, so with a cell as large as the query radius the cost of finding every triple
/// grows with the number of traces times the local density, not with its cube.
struct SpatialGrid: Sendable {
    let cellSize: Double
    /// (cell key, point index), sorted by key.
    private var cells: [(key: Int64, index: Int)]
    private let points: [Vec2]

    init(points: [Vec2], cellSize: Double) {
        self.cellSize = max(cellSize, 1)
        self.points = points
        var c: [(key: Int64, index: Int)] = []
        c.reserveCapacity(points.count)
        for (i, p) in points.enumerated() { c.append((Self.key(cell(p, self.cellSize)), i)) }
        c.sort { $0.key < $1.key || ($0.key == $1.key && $0.index < $1.index) }
        cells = c
    }

    private static func key(_ c: (Int64, Int64)) -> Int64 { (c.0 &<< 32) &+ (c.1 & 0xffff_ffff) }

    /// Indices of the points within `radius` (≤ cellSize) of `p`, in ascending index order
    /// per cell; `body` is called once per point.
    func forEachNeighbour(of p: Vec2, radius: Double, _ body: (Int) -> Void) {
        let (cx, cy) = cell(p, cellSize)
        let r2 = radius * radius
        for dx in -1...1 {
            for dy in -1...1 {
                let k = Self.key((cx + Int64(dx), cy + Int64(dy)))
                var lo = 0, hi = cells.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if cells[mid].key < k { lo = mid + 1 } else { hi = mid }
                }
                while lo < cells.count, cells[lo].key == k {
                    let i = cells[lo].index
                    if (points[i] - p).lengthSquared <= r2 { body(i) }
                    lo += 1
                }
            }
        }
    }
}

private func cell(_ p: Vec2, _ size: Double) -> (Int64, Int64) {
    (Int64((p.x / size).rounded(.down)), Int64((p.y / size).rounded(.down)))
}
