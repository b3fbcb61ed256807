// Turns snapshots into TUIO 1.1 and TUIO 2.0 datagrams (OSC bundles), split to fit a datagram.
import MTKTangibles
import PercInput

/// Pure: snapshot in, datagrams out. TUIO 1.1 sends one bundle per profile (`/tuio/2Dobj`
/// for tangibles, `/tuio/2Dcur` for fingers) as `source`, `alive`, `set`…, `fseq`; TUIO 2.0
/// one bundle `frm`, `tok`…, `ptr`…, `alv`. A frame too large for `maxDatagramBytes` is split
/// into several bundles, each repeating the full alive list and the same frame number
/// (INPUT-NOTES.md: the reference client accepts an fseq equal to the last one).
struct TUIOEncoder {
    let source: String
    let surface: Vec2
    let maxDatagramBytes: Int
    private(set) var frameSequence: Int32 = 0
    private var sessions = TUIOSessionIDs()

    init(source: String, surface: Vec2, maxDatagramBytes: Int = 1400) {
        self.source = source; self.surface = surface; self.maxDatagramBytes = max(256, maxDatagramBytes)
    }

    private struct Item { var sessionID: Int32; var set11: OSCMessage; var msg20: OSCMessage }

    /// Encodes one frame; returns (TUIO 1.1 datagrams, TUIO 2.0 datagrams), each only if asked for.
    mutating func encode(_ s: SurfaceSnapshot, unixTime: Double, v11 wants11: Bool = true, v20 wants20: Bool = true)
        -> (v11: [[UInt8]], v20: [[UInt8]]) {
        frameSequence = frameSequence == Int32.max ? 1 : frameSequence + 1
        var objects: [Item] = []
        var cursors: [Item] = []
        var alive = Set<TUIOSessionIDs.Key>()
        for t in s.tangibles {
            guard let pose = t.pose, let session = t.session else { continue }
            let key = TUIOSessionIDs.Key.tangible(session: session)
            alive.insert(key)
            let sid = sessions.id(key)
            let x = Float(pose.position.x / surface.x), y = Float(pose.position.y / surface.y)
            let vx = Float(t.velocity.x / surface.x), vy = Float(t.velocity.y / surface.y)
            let a = Float(pose.angle)
            let set = OSCMessage("/tuio/2Dobj", [.string("set"), .int32(sid), .int32(Int32(truncatingIfNeeded: t.id)),
                                                  .float32(x), .float32(y), .float32(a), .float32(vx), .float32(vy),
                                                  .float32(0), .float32(0), .float32(0)])
            let tok = OSCMessage("/tuio2/tok", [.int32(sid), .int32(0), .int32(Int32(truncatingIfNeeded: t.id)),
                                                 .float32(x), .float32(y), .float32(a)])
            objects.append(Item(sessionID: sid, set11: set, msg20: tok))
        }
        for p in s.pointers {
            let key = TUIOSessionIDs.Key.pointer(p.id)
            alive.insert(key)
            let sid = sessions.id(key)
            let x = Float(p.position.x / surface.x), y = Float(p.position.y / surface.y)
            let vx = Float(p.velocity.x / surface.x), vy = Float(p.velocity.y / surface.y)
            let set = OSCMessage("/tuio/2Dcur", [.string("set"), .int32(sid), .float32(x), .float32(y),
                                                  .float32(vx), .float32(vy), .float32(0)])
            let ptr = OSCMessage("/tuio2/ptr", [.int32(sid), .int32(0), .int32(0), .float32(x), .float32(y),
                                                 .float32(0), .float32(0), .float32(0), .float32(1)])
            cursors.append(Item(sessionID: sid, set11: set, msg20: ptr))
        }
        sessions.keep(only: alive)
        let v11 = wants11 ? bundles11("/tuio/2Dobj", objects) + bundles11("/tuio/2Dcur", cursors) : []
        let v20 = wants20 ? bundles20(objects + cursors, unixTime: unixTime) : []
        return (v11, v20)
    }

    private func bundles11(_ profile: String, _ items: [Item]) -> [[UInt8]] {
        let head = [OSCMessage(profile, [.string("source"), .string(source)]),
                    OSCMessage(profile, [.string("alive")] + items.map { .int32($0.sessionID) })]
        let tail = OSCMessage(profile, [.string("fseq"), .int32(frameSequence)])
        return split(head: head, body: items.map(\.set11), tail: [tail])
    }

    private func bundles20(_ items: [Item], unixTime: Double) -> [[UInt8]] {
        let dim = Int32(truncatingIfNeeded: (Int(surface.x.rounded()) & 0xFFFF) << 16 | (Int(surface.y.rounded()) & 0xFFFF))
        let frm = OSCMessage("/tuio2/frm", [.int32(frameSequence), .timeTag(OSCTimeTag(unixSeconds: unixTime)),
                                            .int32(dim), .string(source)])
        let alv = OSCMessage("/tuio2/alv", items.map { .int32($0.sessionID) })
        return split(head: [frm], body: items.map(\.msg20), tail: [alv])
    }

    /// Packs `body` messages into as few bundles as fit, each `head + part + tail`. Each
    /// message is encoded once; bundles are assembled from the encoded messages.
    private func split(head: [OSCMessage], body: [OSCMessage], tail: [OSCMessage]) -> [[UInt8]] {
        func encoded(_ m: OSCMessage) -> [UInt8] { OSCPacket.message(m).encoded() }
        let headBytes = head.map(encoded), tailBytes = tail.map(encoded)
        let fixed = 16 + (headBytes + tailBytes).map { $0.count + 4 }.reduce(0, +)
        var out: [[UInt8]] = []
        var part: [[UInt8]] = []
        var used = fixed
        func flush() {
            out.append(OSCPacket.encodedBundle(elements: headBytes + part + tailBytes))
            part = []
            used = fixed
        }
        for m in body {
            let bytes = encoded(m)
            if !part.isEmpty && used + bytes.count + 4 > maxDatagramBytes { flush() }
            part.append(bytes)
            used += bytes.count + 4
        }
        if !part.isEmpty || out.isEmpty { flush() }
        return out
    }
}
