// A uniform grid over trace positions, so that neighbour queries cost O(local density).

/// Points bucketed into square cells of `cellSize` mm. Built once per frame by a counting
/// sort into a dense table over the points' bounding box (no hashing, no per-cell
/// allocation, O(1) cell lookup); a query visits the 3×3 cells around a point, so with a
/// cell as large as the query radius the cost of finding every triple grows with the
/// number of traces times the local density, not with its cube. Points spread so widely
/// that the dense table would be large fall back to one sorted list searched by bisection.
struct SpatialGrid: Sendable {
    private(set) var cellSize: Double = 1
    private var points: [Vec2] = []
    private var originX = 0.0, originY = 0.0
    private var width = 0, height = 0
    /// Dense layout: points of cell c are `order[start[c]..<start[c + 1]]`, ascending.
    private var start: [Int32] = []
    private var order: [Int32] = []
    /// Scratch of the counting sort, kept with its capacity for the next frame.
    private var cellOf: [Int32] = []
    private var fill: [Int32] = []
    /// Sparse layout: (cell key, point index), sorted by key.
    private var sparse: [(key: Int64, index: Int)] = []
    private var dense = true

    /// An empty grid (no points); `load` fills it.
    init() {}

    init(points: [Vec2], cellSize: Double) { load(points: points, cellSize: cellSize) }

    /// Rebuilds the grid over `points`, reusing the buffers of the previous frame (one
    /// grid per engine, so a step allocates nothing here once the buffers are large enough).
    mutating func load(points: [Vec2], cellSize: Double) {
        let size = max(cellSize, 1)
        self.cellSize = size
        self.points = points
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for p in points {
            minX = min(minX, p.x); minY = min(minY, p.y); maxX = max(maxX, p.x); maxY = max(maxY, p.y)
        }
        if points.isEmpty || !(minX.isFinite && minY.isFinite && maxX.isFinite && maxY.isFinite) {
            minX = 0; minY = 0; maxX = 0; maxY = 0
        }
        // Cells aligned to multiples of the size, as in the sparse layout: the same cells,
        // so the same visiting order whichever layout is used.
        minX = (minX / size).rounded(.down) * size; minY = (minY / size).rounded(.down) * size
        originX = minX; originY = minY
        let w = Double((maxX - minX) / size).rounded(.down) + 1, h = Double((maxY - minY) / size).rounded(.down) + 1
        if w.isFinite, h.isFinite, w * h <= Double(8 * points.count + 1024) {
            dense = true
            width = Int(w); height = Int(h)
            sparse.removeAll(keepingCapacity: true)
            Self.reset(&start, width * height + 1)
            Self.reset(&cellOf, points.count)
            for (i, p) in points.enumerated() {
                let c = Int((p.x - minX) / size) + width * Int((p.y - minY) / size)
                cellOf[i] = Int32(c)
                start[c + 1] += 1
            }
            for c in 0..<(width * height) { start[c + 1] += start[c] }
            fill.removeAll(keepingCapacity: true)
            fill.append(contentsOf: start)
            Self.reset(&order, points.count)
            for i in points.indices {
                let c = Int(cellOf[i])
                order[Int(fill[c])] = Int32(i)
                fill[c] += 1
            }
        } else {
            dense = false
            width = 0; height = 0
            sparse.removeAll(keepingCapacity: true)
            sparse.reserveCapacity(points.count)
            for (i, p) in points.enumerated() { sparse.append((Self.key(cell(p, size)), i)) }
            sparse.sort { $0.key < $1.key || ($0.key == $1.key && $0.index < $1.index) }
        }
    }

    /// Lets go of the points (the scene's positions buffer), so that the scene can refill
    /// it in place next frame.
    mutating func releasePoints() { points = [] }

    /// `count` zeros, in the array's existing buffer when it is large enough.
    private static func reset(_ a: inout [Int32], _ count: Int) {
        a.removeAll(keepingCapacity: true)
        a.append(contentsOf: repeatElement(0, count: count))
    }

    private static func key(_ c: (Int64, Int64)) -> Int64 { (c.0 &<< 32) &+ (c.1 & 0xffff_ffff) }

    /// Indices of the points within `radius` (≤ cellSize) of `p`, in ascending index order
    /// per cell (cells in a fixed order); `body` is called once per point.
    @inline(__always)
    func forEachNeighbour(of p: Vec2, radius: Double, _ body: (Int) -> Void) {
        let r2 = radius * radius
        if dense {
            let fx = ((p.x - originX) / cellSize).rounded(.down), fy = ((p.y - originY) / cellSize).rounded(.down)
            guard fx.isFinite, fy.isFinite, fx >= -1, fy >= -1, fx <= Double(width), fy <= Double(height) else { return }
            let cx = Int(fx), cy = Int(fy)
            start.withUnsafeBufferPointer { start in
                order.withUnsafeBufferPointer { order in
                    points.withUnsafeBufferPointer { points in
                        for x in (cx - 1)...(cx + 1) where x >= 0 && x < width {
                            for y in (cy - 1)...(cy + 1) where y >= 0 && y < height {
                                let c = x + width * y
                                for k in Int(start[c])..<Int(start[c + 1]) {
                                    let i = Int(order[k])
                                    let d = points[i] - p
                                    if d.x * d.x + d.y * d.y <= r2 { body(i) }
                                }
                            }
                        }
                    }
                }
            }
            return
        }
        let (cx, cy) = cell(p, cellSize)
        for dx in -1...1 {
            for dy in -1...1 {
                let k = Self.key((cx + Int64(dx), cy + Int64(dy)))
                var lo = 0, hi = sparse.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if sparse[mid].key < k { lo = mid + 1 } else { hi = mid }
                }
                while lo < sparse.count, sparse[lo].key == k {
                    let i = sparse[lo].index
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
