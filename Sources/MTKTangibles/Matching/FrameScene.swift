// The per-frame view of the alive traces the matchers work on: positions, grid, holders.

/// A snapshot of the live traces of one frame, built once per step: arrays parallel to the
/// table's live records (no per-trace objects, no per-frame id map: the table's index
/// serves), the spatial grid, and which tangible holds which trace. Traces that ended in
/// this frame are present but never combined (`alive` false, `blocked` true).
struct FrameScene {
    var ids: [TraceID] = []
    var positions: [Vec2] = []
    /// Small integer per input origin: triples never mix origins.
    var originIndex: [Int] = []
    var origins: [InputOrigin] = []
    var began: [Seconds] = []
    var holder: [TangibleID?] = []
    var alive: [Bool] = []
    let slot: [TraceID: Int]
    var grid: SpatialGrid
    /// 0 not computed, 1 stationary, 2 moving.
    private var stationaryCache: [UInt8] = []
    private var velocityCache: [Vec2?] = []
    /// Traces a matcher may not combine (held by a tangible whose hold is final).
    var blocked: [Bool] = []
    let now: Seconds

    init(table: TraceTable, cellSize: Double) {
        now = table.now
        slot = table.liveIndex
        let n = table.live.count
        ids.reserveCapacity(n); positions.reserveCapacity(n); originIndex.reserveCapacity(n)
        began.reserveCapacity(n); alive.reserveCapacity(n)
        var last = -1
        for i in 0..<n {
            let s = table.live[i].summary
            ids.append(s.id)
            positions.append(s.lastPosition)
            if last >= 0 && origins[last] == s.origin {
                originIndex.append(last)
            } else if let o = origins.firstIndex(of: s.origin) {
                last = o; originIndex.append(o)
            } else {
                last = origins.count; originIndex.append(last); origins.append(s.origin)
            }
            began.append(s.beganAt)
            alive.append(s.endedAt == nil)
        }
        holder = Array(repeating: nil, count: n)
        stationaryCache = Array(repeating: 0, count: n)
        velocityCache = Array(repeating: nil, count: n)
        blocked = alive.map { !$0 }
        grid = SpatialGrid(points: positions, cellSize: cellSize)
    }

    mutating func isStationary(_ i: Int, table: TraceTable) -> Bool {
        if stationaryCache[i] == 0 { stationaryCache[i] = table.isStationary(ids[i], at: now) ? 1 : 2 }
        return stationaryCache[i] == 1
    }

    mutating func velocity(_ i: Int, table: TraceTable) -> Vec2 {
        if let v = velocityCache[i] { return v }
        let v = table.velocity(ids[i], at: now)
        velocityCache[i] = v
        return v
    }

    func holder(of id: TraceID) -> TangibleID? {
        guard let i = slot[id] else { return nil }
        return holder[i]
    }

    mutating func setHolder(_ id: TraceID, _ t: TangibleID?) {
        if let i = slot[id] { holder[i] = t }
    }

    /// The free (or held by `owner`) trace of `origin` nearest to `p` within `radius`,
    /// not in `excluding`, that began at or after `notBefore`.
    func nearestFree(to p: Vec2, radius: Double, origin: InputOrigin, owner: TangibleID,
                     excluding: [TraceID], notBefore: Seconds) -> TraceID? {
        var best: (Int, Double)?
        grid.forEachNeighbour(of: p, radius: radius) { i in
            guard alive[i], holder[i] == nil || holder[i] == owner, began[i] >= notBefore, origins[originIndex[i]] == origin,
                  !excluding.contains(ids[i]) else { return }
            let d = positions[i].distance(to: p)
            if d < (best?.1 ?? .infinity) { best = (i, d) }
        }
        return best.map { ids[$0.0] }
    }
}
