// The per-frame view of the alive traces the matchers work on: positions, grid, holders.

/// A snapshot of the alive traces of one frame, built once per step: parallel arrays (no
/// per-trace objects), the spatial grid, and which tangible holds which trace.
struct FrameScene {
    var ids: [TraceID] = []
    var positions: [Vec2] = []
    /// Small integer per input origin: triples never mix origins.
    var originIndex: [Int] = []
    var origins: [InputOrigin] = []
    var began: [Seconds] = []
    var holder: [TangibleID?] = []
    var slot: [TraceID: Int] = [:]
    var grid: SpatialGrid
    /// 0 not computed, 1 stationary, 2 moving.
    private var stationaryCache: [UInt8] = []
    let now: Seconds

    init(table: TraceTable, cellSize: Double) {
        now = table.now
        var originSlots: [InputOrigin: Int] = [:]
        for r in table.live where !r.summary.isEnded {
            let s = r.summary
            slot[s.id] = ids.count
            ids.append(s.id)
            positions.append(s.lastPosition)
            if let o = originSlots[s.origin] { originIndex.append(o) } else {
                originSlots[s.origin] = origins.count
                originIndex.append(origins.count)
                origins.append(s.origin)
            }
            began.append(s.beganAt)
        }
        holder = Array(repeating: nil, count: ids.count)
        stationaryCache = Array(repeating: 0, count: ids.count)
        grid = SpatialGrid(points: positions, cellSize: cellSize)
    }

    mutating func isStationary(_ i: Int, table: TraceTable) -> Bool {
        if stationaryCache[i] == 0 { stationaryCache[i] = table.isStationary(ids[i], at: now) ? 1 : 2 }
        return stationaryCache[i] == 1
    }

    func holder(of id: TraceID) -> TangibleID? {
        guard let i = slot[id] else { return nil }
        return holder[i]
    }

    mutating func setHolder(_ id: TraceID, _ t: TangibleID?) {
        if let i = slot[id] { holder[i] = t }
    }

    /// The free (or held by `owner`) trace of `origin` nearest to `p` within `radius`,
    /// not in `excluding`.
    func nearestFree(to p: Vec2, radius: Double, origin: InputOrigin, owner: TangibleID,
                     excluding: [TraceID]) -> TraceID? {
        var best: (Int, Double)?
        grid.forEachNeighbour(of: p, radius: radius) { i in
            guard holder[i] == nil || holder[i] == owner, origins[originIndex[i]] == origin,
                  !excluding.contains(ids[i]) else { return }
            let d = positions[i].distance(to: p)
            if d < (best?.1 ?? .infinity) { best = (i, d) }
        }
        return best.map { ids[$0.0] }
    }
}
