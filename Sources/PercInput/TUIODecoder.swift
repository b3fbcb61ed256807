// Turns TUIO 1.1 /tuio/2Dcur and TUIO 2.0 /tuio2/ptr bundles into ContactUpdates (pure; no sockets).
//
// TUIO 1.1: per bundle `source` (optional), `alive s…`, `set s x y X Y m`…, `fseq f`; the
// frame commits at fseq. TUIO 2.0: `/tuio2/frm f_id time dim source`, `/tuio2/ptr s_id tu_id
// c_id x y a shear radius press …`, `/tuio2/alv s…`; it commits at alv. A frame whose id is not
// newer than the last one of its source is late or a duplicate and is dropped (unless the gap
// is over 100: the sender restarted) — except a further part of a split frame: the same id,
// the same full alive set, and sets only for sessions the earlier parts did not set (that is
// how senders split a frame too large for one datagram, percbridge's TUIO output included; the
// reference client accepts an equal fseq). fseq −1 is accepted without ordering (the reference
// server marks the leading parts of a split frame with it). Coordinates 0...1 are scaled to
// the surface size in mm; times are arrival times (TUIO carries no usable clock for us).
// Bounds (TUIOLimits): a source silent for `sourceTimeout` is dropped with its cursors ended
// (`expire`); new sources, and new sessions beyond the per-source and total caps, are dropped
// and counted in `drops` (the caller turns them into a metric and a log line).
import MTKTangibles

/// Turns TUIO 1.1 `/tuio/2Dcur` and TUIO 2.0 `/tuio2/ptr` bundles into `ContactUpdate`s: alive
/// sets, fseq order per source, late and duplicate frames dropped, sources expired when silent.
/// Pure: the caller owns the socket and the clock.
public struct TUIODecoder: Sendable {
    /// Session ids alive per source, with their last sample.
    struct SourceState: Sendable {
        var lastFrame: Int64?
        var alive: [Int64: ContactUpdate] = [:]
        /// The alive set and the sessions set by the parts of `lastFrame` seen so far.
        var frameAlive: Set<Int64> = []
        var frameSets: Set<Int64> = []
        /// Arrival of its last frame; silent sources expire.
        var lastSeen: Seconds = 0
    }

    public let surfaceSize: Vec2
    public var bad = BadInputLog()
    private(set) var framesAccepted = 0
    public private(set) var framesDropped = 0
    public var limits: TUIOLimits
    /// What was dropped on purpose since the last `takeDrops()`, by reason.
    private var drops: [String: Int] = [:]
    private var sources: [String: SourceState] = [:]
    /// Alive sessions over all sources (bounded by `limits.maxTraces`).
    private(set) var aliveTotal = 0
    var sourceCount: Int { sources.count }

    public init(surfaceSize: Vec2, limits: TUIOLimits = TUIOLimits()) { self.surfaceSize = surfaceSize; self.limits = limits }

    /// The drops counted since the last call, by reason (`tuio_max_sources`, …).
    mutating func takeDrops() -> [String: Int] {
        defer { drops = [:] }
        return drops
    }

    private mutating func drop(_ reason: String, _ kind: String, at sender: String, _ detail: String = "") {
        drops[reason, default: 0] += 1
        bad.record(kind, at: sender, detail)
    }

    /// Ends the cursors of every source silent for longer than `limits.sourceTimeout` at `now`
    /// and forgets the source (a tracker that crashed never sends its last empty `alive`).
    public mutating func expire(now: Seconds, into out: inout [ContactUpdate]) {
        let silent = sources.filter { now - $0.value.lastSeen > limits.sourceTimeout }.keys.sorted()
        for key in silent {
            let state = sources.removeValue(forKey: key)!
            for id in state.alive.keys.sorted() {
                var u = state.alive[id]!
                u.phase = .end; u.time = now; u.arrival = now
                out.append(u)
            }
            aliveTotal -= state.alive.count
            drop("tuio_source_timeout", "TUIO source silent, its cursors ended", at: key,
                 "no frame for over \(limits.sourceTimeout) s (input source_timeout_s), \(state.alive.count) cursors ended")
        }
    }

    /// Decodes one datagram from `sender` ("host:port").
    public mutating func feed(datagram: [UInt8], sender: String, arrival: Seconds, into out: inout [ContactUpdate]) {
        do {
            feed(try OSCPacket.decode(datagram), sender: sender, arrival: arrival, into: &out)
        } catch {
            bad.record("malformed OSC", at: "\(sender) byte \(error.offset)", error.description)
        }
    }

    /// A frame in progress within one packet.
    private struct Pending {
        var version = 1
        var source: String?
        var alive: [Int64]?
        var sets: [(Int64, Vec2, Double?)] = []
        var frame: Int64?
    }

    public mutating func feed(_ packet: OSCPacket, sender: String, arrival: Seconds, into out: inout [ContactUpdate]) {
        var p1 = Pending(), p2 = Pending(version: 2)
        for m in packet.messages {
            switch m.address {
            case "/tuio/2Dcur":
                guard let cmd = m.arguments.first?.stringValue else { bad.record("TUIO 2Dcur without command", at: sender); continue }
                switch cmd {
                case "source": p1.source = m.arguments.dropFirst().first?.stringValue
                case "alive":
                    let ids = m.arguments.dropFirst().map(\.integerValue)
                    guard !ids.contains(nil) else { bad.record("TUIO alive with non-integer ids", at: sender, m.description); continue }
                    p1.alive = ids.map { $0! }
                case "set":
                    let a = m.arguments
                    guard a.count >= 4, let s = a[1].integerValue, let x = a[2].numericValue, let y = a[3].numericValue else {
                        bad.record("malformed TUIO 2Dcur set", at: sender, m.description); continue
                    }
                    guard let pos = position(x, y, sender: sender) else { continue }
                    p1.sets.append((s, pos, nil))
                case "fseq":
                    guard let f = m.arguments.dropFirst().first?.integerValue else { bad.record("malformed TUIO fseq", at: sender, m.description); continue }
                    p1.frame = f
                    commit(&p1, sender: sender, arrival: arrival, into: &out)
                    p1 = Pending()
                default:
                    bad.record("unknown TUIO 2Dcur command", at: sender, cmd)
                }
            case "/tuio2/frm":
                let a = m.arguments
                guard a.count >= 1, let f = a[0].integerValue else { bad.record("malformed TUIO2 frm", at: sender, m.description); continue }
                p2 = Pending(version: 2)
                p2.frame = f
                p2.source = a.count >= 4 ? a[3].stringValue : nil
            case "/tuio2/ptr":
                let a = m.arguments
                guard a.count >= 5, let s = a[0].integerValue, let x = a[3].numericValue, let y = a[4].numericValue else {
                    bad.record("malformed TUIO2 ptr", at: sender, m.description); continue
                }
                guard let pos = position(x, y, sender: sender) else { continue }
                let radius = a.count >= 8 ? a[7].numericValue : nil
                p2.sets.append((s, pos, radius.flatMap { $0.isFinite && $0 > 0 ? $0 * 2 * surfaceSize.x : nil }))
            case "/tuio2/alv":
                let ids = m.arguments.map(\.integerValue)
                guard !ids.contains(nil) else { bad.record("TUIO2 alv with non-integer ids", at: sender, m.description); continue }
                guard p2.frame != nil else { bad.record("TUIO2 alv without frm", at: sender); continue }
                p2.alive = ids.map { $0! }
                commit(&p2, sender: sender, arrival: arrival, into: &out)
                p2 = Pending(version: 2)
            default:
                // Other profiles (2Dobj, tok, …) are not touches; ignore them silently.
                break
            }
        }
        if p1.alive != nil || !p1.sets.isEmpty { bad.record("TUIO bundle without fseq", at: sender) }
    }

    private mutating func position(_ x: Double, _ y: Double, sender: String) -> Vec2? {
        guard x.isFinite, y.isFinite, (0...1).contains(x), (0...1).contains(y) else {
            bad.record("TUIO position out of range", at: sender, "(\(x), \(y)) is not within 0...1")
            return nil
        }
        return Vec2(x: x * surfaceSize.x, y: y * surfaceSize.y)
    }

    private mutating func commit(_ p: inout Pending, sender: String, arrival: Seconds, into out: inout [ContactUpdate]) {
        let key = "tuio\(p.version) \(p.source ?? sender)"
        if sources[key] == nil, sources.count >= limits.maxSources {
            framesDropped += 1
            drop("tuio_max_sources", "TUIO source over max_sources", at: sender,
                 "\(limits.maxSources) sources are active; \(InputText.clip(key)) is ignored until one goes silent")
            return
        }
        var state = sources[key] ?? SourceState()
        state.lastSeen = arrival
        defer { sources[key]?.lastSeen = arrival }
        let frame = p.frame ?? -1
        let continues = frame != -1 && frame == state.lastFrame && !p.sets.isEmpty
            && Set(p.alive ?? []) == state.frameAlive && p.sets.allSatisfy { !state.frameSets.contains($0.0) }
        if !continues, frame != -1, let last = state.lastFrame, frame <= last, last - frame <= 100 {
            framesDropped += 1
            bad.record(frame == last ? "duplicate TUIO frame" : "late TUIO frame", at: sender, "frame \(frame) after \(last)")
            return
        }
        if continues {
            state.frameSets.formUnion(p.sets.map(\.0))
        } else {
            framesAccepted += 1
            if frame != -1 {
                state.lastFrame = frame
                state.frameAlive = Set(p.alive ?? Array(state.alive.keys))
                state.frameSets = Set(p.sets.map(\.0))
            }
        }
        let origin = InputOrigin(kind: .tuio, device: p.source ?? sender)
        let alive = Set(p.alive ?? Array(state.alive.keys))
        // Ends first (sessions that left the alive set), in id order for determinism.
        for id in state.alive.keys.sorted() where !alive.contains(id) {
            var u = state.alive.removeValue(forKey: id)!
            aliveTotal -= 1
            u.phase = .end; u.time = arrival; u.arrival = arrival
            out.append(u)
        }
        for (id, pos, major) in p.sets {
            guard alive.contains(id) else { bad.record("TUIO set for a session not alive", at: sender, "session \(id)"); continue }
            let phase: ContactUpdate.Phase = state.alive[id] == nil ? .begin : .move
            if phase == .begin {
                if state.alive.count >= limits.maxTracesPerSource {
                    drop("tuio_max_traces_per_source", "TUIO session over max_traces_per_source", at: sender,
                         "\(limits.maxTracesPerSource) sessions of this source are alive; session \(id) is ignored")
                    continue
                }
                if aliveTotal >= limits.maxTraces {
                    drop("tuio_max_traces", "TUIO session over max_traces", at: sender,
                         "\(limits.maxTraces) sessions of this input are alive; session \(id) is ignored")
                    continue
                }
                aliveTotal += 1
            }
            let u = ContactUpdate(origin: origin, contactID: id, phase: phase, position: pos, major: major, minor: major,
                                  time: arrival, arrival: arrival)
            if phase == .move, let prev = state.alive[id], prev.position == pos, prev.major == major { continue }
            state.alive[id] = u
            out.append(u)
        }
        sources[key] = state
    }
}
