// All traces of all input sources: live traces, recently ended ones, and bounded history.

/// The trace store of thesis 3.2.1. `apply(_:)` turns a frame's contact updates into one
/// entry per live trace; ended traces take part in one more frame (the one whose entry
/// says `end`) and then move to history, where the compress and deletion times bound memory.
public struct TraceTable: Sendable {
    private struct ContactKey: Hashable, Sendable {
        var origin: Int
        var contact: Int64
    }

    public private(set) var settings: TraceSettings
    private var nextID: TraceID = 1
    /// Live traces (alive, or ended in the current frame), in order of their begin.
    private(set) var live: [TraceRecord] = []
    private(set) var liveIndex: [TraceID: Int] = [:]
    private var byContact: [ContactKey: TraceID] = [:]
    /// Small numbers for input origins (hashing the device name once, not per update).
    private var originIDs: [InputOrigin: Int] = [:]
    private var nextOriginID = 0
    private var lastOrigin: (origin: InputOrigin, id: Int)?
    /// Origins known before those no contact uses are forgotten: each app connection and
    /// JSON sender is an origin of its own, so a service running for days sees unboundedly many.
    static let maxIdleOrigins = 64
    private var history: [TraceID: TraceRecord] = [:]
    /// Ended traces in order of their end, for the compress and deletion sweeps.
    private var endOrder: [(id: TraceID, end: Seconds)] = []
    private var compressCursor = 0
    private var deleteCursor = 0
    /// Time of the last applied frame.
    public private(set) var now: Seconds = -.infinity
    public private(set) var frame: UInt64 = 0

    public init(settings: TraceSettings = TraceSettings()) { self.settings = settings }

    // MARK: Applying frames

    /// Adds one entry per live trace for `frame`; returns what changed.
    @discardableResult
    public mutating func apply(_ frame: Frame) -> TraceChanges {
        var changes = TraceChanges()
        retireEnded(into: &changes)
        now = frame.time
        self.frame = frame.number
        // Through the buffer: iterating the array copied every update (and retained its strings).
        frame.contacts.withUnsafeBufferPointer { contacts in
            for k in contacts.indices { apply(contacts[k], number: frame.number, time: frame.time, changes: &changes) }
        }
        for i in live.indices where live[i].entries.last?.frame != frame.number {
            // No sample this frame: the touch is still there, unchanged (one entry per frame).
            guard var e = live[i].entries.last else { continue }
            e.frame = frame.number; e.time = frame.time; e.phase = .move
            live[i].entries.append(e)
            live[i].summary.entryCount += 1
            live[i].summary.lastTime = frame.time
            live[i].summary.lastPhase = .move
        }
        // `trim` is static on purpose: a method on `self` would make Swift copy the table to
        // pass `self` alongside `&live[i]`, and every trim would then copy the live array.
        let settings = self.settings
        for i in live.indices { Self.trim(&live[i], settings) }
        sweepHistory()
        return changes
    }

    private mutating func apply(_ u: ContactUpdate, number: UInt64, time: Seconds, changes: inout TraceChanges) {
        let key = ContactKey(origin: originID(u.origin), contact: u.contactID)
        let entry = TraceEntry(frame: number, time: time, position: u.position, raw: u.raw,
                               major: u.major, minor: u.minor, orientation: u.orientation,
                               phase: u.phase, arrival: u.arrival)
        if let id = byContact[key], u.phase != .begin, let slot = liveIndex[id] {
            // In place: a copy of the record would copy its whole entry buffer.
            Self.record(entry, number: number, time: time, into: &live[slot])
            if u.phase == .end {
                live[slot].summary.endedAt = time
                byContact[key] = nil
                changes.ended.append(id)
            }
            return
        }
        if u.phase == .end { changes.unknownContactUpdates += 1; return }
        if u.phase == .move { changes.unknownContactUpdates += 1 }
        if let old = byContact[key], let slot = liveIndex[old] {
            // A begin for a contact that is still alive: the source lost the end; close it.
            live[slot].summary.endedAt = time
            live[slot].summary.lastPhase = .end
            if live[slot].entries.last?.frame == number {
                live[slot].entries[live[slot].entries.count - 1].phase = .end
            } else if var e = live[slot].entries.last {
                e.frame = number; e.time = time; e.phase = .end
                live[slot].entries.append(e)
                live[slot].summary.entryCount += 1
            }
            changes.ended.append(old)
        }
        let id = nextID
        nextID += 1
        var e = entry
        e.phase = .begin
        let summary = TraceSummary(id: id, origin: u.origin, contactID: u.contactID, beganAt: time,
                                   beganFrame: number, firstPosition: u.position, lastPosition: u.position,
                                   lastTime: time, lastPhase: .begin, endedAt: nil, entryCount: 1,
                                   isCompressed: false, pathLength: 0)
        liveIndex[id] = live.count
        live.append(TraceRecord(summary: summary, entries: EntryRing([e]), samples: []))
        byContact[key] = id
        changes.began.append(id)
    }

    /// Writes the frame's sample into a live record: a second sample in the same frame
    /// turns the earlier one into a coalesced sample.
    private static func record(_ entry: TraceEntry, number: UInt64, time: Seconds, into r: inout TraceRecord) {
        var e = entry
        let n = r.entries.count
        if n > 0, r.entries[n - 1].frame == number {
            let last = r.entries[n - 1]
            r.samples.append(TraceSample(frame: last.frame, time: last.time, arrival: last.arrival, position: last.position))
            if last.phase == .begin && e.phase == .move { e.phase = .begin }
            if n >= 2 {
                let before = r.entries[n - 2].position
                r.summary.pathLength += e.position.distance(to: before) - last.position.distance(to: before)
            }
            r.entries[n - 1] = e
        } else {
            if n > 0 { r.summary.pathLength += e.position.distance(to: r.entries[n - 1].position) }
            r.entries.append(e)
            r.summary.entryCount += 1
        }
        r.summary.lastPosition = e.position
        r.summary.lastTime = time
        r.summary.lastPhase = e.phase
    }

    private mutating func originID(_ o: InputOrigin) -> Int {
        if let last = lastOrigin, last.origin == o { return last.id }
        let id: Int
        if let known = originIDs[o] { id = known } else {
            if originIDs.count >= Self.maxIdleOrigins { forgetIdleOrigins() }
            id = nextOriginID
            nextOriginID += 1
            originIDs[o] = id
        }
        lastOrigin = (o, id)
        return id
    }

    /// Drops the origins no live contact refers to (ids are never reused, so a key of an
    /// origin that comes back later cannot meet an old contact).
    private mutating func forgetIdleOrigins() {
        let used = Set(byContact.keys.map(\.origin))
        originIDs = originIDs.filter { used.contains($0.value) }
        lastOrigin = nil
    }

    private mutating func retireEnded(into changes: inout TraceChanges) {
        var any = false
        // By index: `for r in live` copied every record (and retained its buffers) each frame.
        for i in live.indices {
            guard let end = live[i].summary.endedAt else { continue }
            let id = live[i].summary.id
            history[id] = live[i]
            endOrder.append((id, end))
            changes.retired.append(id)
            any = true
        }
        guard any else { return }
        // In place: keeps the buffer's capacity, so appends this frame do not reallocate.
        live.removeAll { $0.summary.isEnded }
        liveIndex.removeAll(keepingCapacity: true)
        for i in live.indices { liveIndex[live[i].summary.id] = i }
    }

    private static func trim(_ r: inout TraceRecord, _ settings: TraceSettings) {
        if r.entries.count >= max(1, settings.maxEntriesPerTrace) {
            // Drop a quarter at once (the ring moves nothing); the buffer never grows past the cap.
            r.entries.removeFirst(min(r.entries.count - 1, max(1, r.entries.count - settings.maxEntriesPerTrace * 3 / 4)))
        }
        if r.samples.count > settings.maxSamplesPerTrace {
            r.samples.removeFirst(max(1, r.samples.count - settings.maxSamplesPerTrace * 3 / 4))
        }
    }

    private mutating func sweepHistory() {
        while compressCursor < endOrder.count, endOrder[compressCursor].end + settings.compressTime <= now {
            let id = endOrder[compressCursor].id
            if var r = history[id] {
                r.entries.removeAll(); r.samples = []; r.summary.isCompressed = true
                history[id] = r
            }
            compressCursor += 1
        }
        while deleteCursor < endOrder.count, endOrder[deleteCursor].end + settings.deletionTime <= now {
            history[endOrder[deleteCursor].id] = nil
            deleteCursor += 1
        }
        let done = min(compressCursor, deleteCursor)
        if done > 256 && done * 2 > endOrder.count {
            endOrder.removeFirst(done)
            compressCursor -= done; deleteCursor -= done
        }
    }

    // MARK: Queries

    private func record(_ id: TraceID) -> TraceRecord? {
        if let slot = liveIndex[id] { return live[slot] }
        return history[id]
    }

    /// Ids of the live traces (alive, or ended in the current frame), in order of their begin.
    public var liveIDs: [TraceID] { live.map(\.summary.id) }
    /// Summaries of the live traces, in order of their begin.
    public var liveSummaries: [TraceSummary] { live.map(\.summary) }
    /// Number of traces in history (ended, not yet deleted).
    public var historyCount: Int { history.count }
    /// Input origins known now (bounded: `maxIdleOrigins` plus those with a contact down).
    var knownOriginCount: Int { originIDs.count }
    /// Entries held in memory over all traces (for the memory bound's tests and metrics).
    public var storedEntryCount: Int {
        live.reduce(0) { $0 + $1.entries.count } + history.values.reduce(0) { $0 + $1.entries.count }
    }

    public func isLive(_ id: TraceID) -> Bool { liveIndex[id] != nil }
    /// True for a live trace that has not ended (its end entry is not in this frame).
    public func isAlive(_ id: TraceID) -> Bool {
        guard let slot = liveIndex[id] else { return false }
        return !live[slot].summary.isEnded
    }
    public func summary(_ id: TraceID) -> TraceSummary? { record(id)?.summary }
    /// The stored entries (empty once compressed), oldest first.
    public func entries(_ id: TraceID) -> ContiguousArray<TraceEntry> { record(id)?.entries.elements ?? [] }
    /// The coalesced samples kept for the trace, oldest first.
    public func samples(_ id: TraceID) -> ContiguousArray<TraceSample> { record(id)?.samples ?? [] }

    /// The latest position of a trace.
    public func position(_ id: TraceID) -> Vec2? { record(id)?.summary.lastPosition }

    /// Where the trace was at a past frame time (the entry of the last frame at or before it);
    /// nil before its begin, after deletion, or when its entries for that time are dropped.
    public func position(_ id: TraceID, at time: Seconds) -> Vec2? {
        guard let r = record(id), let i = r.entryIndex(atOrBefore: time) else { return nil }
        return r.entries[i].position
    }

    /// When the trace began (frame time of its begin entry).
    public func beganAt(_ id: TraceID) -> Seconds? { record(id)?.summary.beganAt }

    /// How long the trace has existed at `time` (up to its end once ended).
    public func age(_ id: TraceID, at time: Seconds) -> Seconds? {
        guard let s = record(id)?.summary else { return nil }
        return min(time, s.endedAt ?? time) - s.beganAt
    }

    /// Mean velocity over the stationary window ending at `time` (mm/s); zero with too
    /// little history.
    public func velocity(_ id: TraceID, at time: Seconds) -> Vec2 {
        guard let r = record(id), let m = r.halfMeans(window: settings.stationaryWindow, now: time),
              m.span > 0 else { return .zero }
        return (m.second - m.first) / m.span
    }

    /// Mean position over the stationary window ending at `time` (a still touch's position
    /// with less of the jitter of one sample) with the number of touch samples behind it
    /// (frames without a new sample repeat the last one and count once).
    public func windowMean(_ id: TraceID, at time: Seconds) -> (position: Vec2, samples: Int)? {
        record(id)?.windowMean(window: settings.stationaryWindow, now: time)
    }

    /// Whether the trace stayed put over the stationary window ending at `time`. A trace with
    /// too little history counts as stationary (nothing says it moved).
    public func isStationary(_ id: TraceID, at time: Seconds) -> Bool {
        guard let r = record(id), let m = r.halfMeans(window: settings.stationaryWindow, now: time) else { return true }
        return m.first.distance(to: m.second) <= settings.stationaryThreshold
    }
}
