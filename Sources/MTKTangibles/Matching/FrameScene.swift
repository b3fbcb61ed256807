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
    /// The table's live index (shared, not copied); empty between steps.
    private(set) var slot: [TraceID: Int] = [:]
    var grid = SpatialGrid()
    /// 0 not computed, 1 stationary, 2 moving.
    private var stationaryCache: [UInt8] = []
    private var velocityCache: [Vec2?] = []
    /// Traces a matcher may not combine (held by a tangible whose hold is final).
    var blocked: [Bool] = []
    private(set) var now: Seconds = -.infinity

    /// An empty scene; `load` fills it.
    init() {}

    init(table: TraceTable, cellSize: Double) { load(table: table, cellSize: cellSize) }

    /// Rebuilds the scene for the table's current frame in the buffers of the last one
    /// (the engine keeps one scene: about a dozen allocations fewer per step).
    mutating func load(table: TraceTable, cellSize: Double) {
        now = table.now
        slot = table.liveIndex
        let n = table.live.count
        ids.removeAll(keepingCapacity: true); positions.removeAll(keepingCapacity: true)
        originIndex.removeAll(keepingCapacity: true); origins.removeAll(keepingCapacity: true)
        began.removeAll(keepingCapacity: true); alive.removeAll(keepingCapacity: true)
        holder.removeAll(keepingCapacity: true); stationaryCache.removeAll(keepingCapacity: true)
        velocityCache.removeAll(keepingCapacity: true); blocked.removeAll(keepingCapacity: true)
        ids.reserveCapacity(n); positions.reserveCapacity(n); originIndex.reserveCapacity(n)
        began.reserveCapacity(n); alive.reserveCapacity(n)
        var last = -1
        for i in 0..<n {
            ids.append(table.live[i].summary.id)
            positions.append(table.live[i].summary.lastPosition)
            if last >= 0 && origins[last] == table.live[i].summary.origin {
                originIndex.append(last)
            } else if let o = origins.firstIndex(of: table.live[i].summary.origin) {
                last = o; originIndex.append(o)
            } else {
                last = origins.count; originIndex.append(last); origins.append(table.live[i].summary.origin)
            }
            began.append(table.live[i].summary.beganAt)
            let isAlive = table.live[i].summary.endedAt == nil
            alive.append(isAlive)
            blocked.append(!isAlive)
        }
        holder.append(contentsOf: repeatElement(nil, count: n))
        stationaryCache.append(contentsOf: repeatElement(0, count: n))
        velocityCache.append(contentsOf: repeatElement(nil, count: n))
        grid.load(points: positions, cellSize: cellSize)
    }

    /// Drops the references into the table and between the scene's own buffers, so that
    /// neither the table's next frame nor the next `load` has to copy a buffer.
    mutating func release() {
        slot = [:]
        grid.releasePoints()
    }

    mutating func isStationary(_ i: Int, table: TraceTable) -> Bool {
        if stationaryCache[i] == 0 { stationaryCache[i] = table.isStationary(ids[i], at: now) ? 1 : 2 }
        return stationaryCache[i] == 1
    }

    /// `isStationary` and `velocity` for a caller that cannot fill the caches: this frame's
    /// cached answer when there is one.
    func stationaryNow(_ i: Int, table: TraceTable) -> Bool {
        stationaryCache[i] == 0 ? table.isStationary(ids[i], at: now) : stationaryCache[i] == 1
    }

    func velocityNow(_ i: Int, table: TraceTable) -> Vec2 { velocityCache[i] ?? table.velocity(ids[i], at: now) }

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
