// The app protocol's `frame` message written straight into bytes: the same JSON as
// JSONEncoder makes of AppWire.FrameMessage (sorted keys, nil fields left out), ~10x cheaper.
import MTKTangibles
import PercRuntime

/// Encodes `frame` messages for the WebSocket apps. A frame is encoded on the frame loop
/// for every frame while an app is connected (in event mode up to `max_rate_hz` times a
/// second), where JSONEncoder took ~0.7 ms for 16 tangibles and 20 pointers (profile of
/// `bench service`, 2026-11-25). `AppFrameJSONTests` holds this writer to JSONEncoder's
/// output of `AppWire.FrameMessage` on random snapshots, so the two cannot drift apart.
enum AppFrameJSON {
    /// - Parameter aheadMS: the app's look-ahead (hello `predict_ms`); 0: no `predicted`.
    static func encode(_ s: SurfaceSnapshot, aheadMS: Int = 0) -> String {
        var w = Writer()
        w.raw("{\"frame\":"); w.int(Int64(truncatingIfNeeded: s.frame))
        w.raw(",\"pointers\":[")
        for (i, p) in s.pointers.enumerated() {
            if i > 0 { w.raw(",") }
            w.raw("{\"id\":"); w.int(p.id)
            w.raw(",\"origin\":"); w.string(p.origin)
            w.raw(",\"velocity\":["); w.number(p.velocity.x); w.raw(","); w.number(p.velocity.y)
            w.raw("],\"x\":"); w.number(p.position.x)
            w.raw(",\"y\":"); w.number(p.position.y)
            w.raw("}")
        }
        w.raw("],\"tangibles\":[")
        for (i, t) in s.tangibles.enumerated() {
            if i > 0 { w.raw(",") }
            w.raw("{\"id\":"); w.int(Int64(t.id))
            w.raw(",\"name\":"); w.string(t.name)
            if let p = t.placement {
                w.raw(",\"placement\":{\"sensor\":["); w.number(p.sensor.x); w.raw(","); w.number(p.sensor.y)
                w.raw("],\"touch\":["); w.number(p.touchPosition.x); w.raw(","); w.number(p.touchPosition.y)
                w.raw("]}")
            }
            if let p = t.pose {
                w.raw(",\"pose\":{\"angle\":"); w.number(p.angle)
                w.raw(",\"x\":"); w.number(p.position.x)
                w.raw(",\"y\":"); w.number(p.position.y)
                w.raw("}")
                if aheadMS > 0 {
                    let dt = Double(aheadMS) / 1000
                    let at = p.position + t.velocity * dt
                    w.raw(",\"predicted\":{\"ahead_ms\":"); w.int(Int64(aheadMS))
                    w.raw(",\"angle\":"); w.number(p.angle + t.angularVelocity * dt)
                    w.raw(",\"x\":"); w.number(at.x)
                    w.raw(",\"y\":"); w.number(at.y)
                    w.raw("}")
                }
            }
            if let provenance = t.provenance { w.raw(",\"provenance\":"); w.string(provenance.rawValue) }
            w.raw(",\"sensors\":{")
            var first = true
            for (key, value) in [("battery", t.battery), ("field", t.field), ("light", t.light)] {
                guard let value else { continue }
                w.raw(first ? "\"" : ",\""); w.raw(key); w.raw("\":"); w.int(Int64(value))
                first = false
            }
            w.raw("}")
            if let session = t.session { w.raw(",\"session\":"); w.int(session) }
            w.raw(",\"state\":"); w.string(t.state.rawValue)
            w.raw(",\"velocity\":["); w.number(t.velocity.x); w.raw(","); w.number(t.velocity.y)
            w.raw("]}")
        }
        w.raw("],\"time\":"); w.number(s.time)
        w.raw(",\"type\":\"frame\"}")
        return String(decoding: w.bytes, as: UTF8.self)
    }

    private struct Writer {
        var bytes: [UInt8] = []

        init() { bytes.reserveCapacity(4096) }

        mutating func raw(_ s: StaticString) {
            s.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }

        mutating func raw(_ s: String) { bytes.append(contentsOf: s.utf8) }

        mutating func int(_ v: Int64) { bytes.append(contentsOf: String(v).utf8) }

        /// As JSONEncoder writes a Double: the shortest round-trip form, without a trailing
        /// ".0"; a value JSON cannot hold (NaN, ±infinity) as 0, so the message stays valid.
        mutating func number(_ v: Double) {
            guard v.isFinite else { bytes.append(UInt8(ascii: "0")); return }
            var d = v.description
            if d.hasSuffix(".0") { d.removeLast(2) }
            bytes.append(contentsOf: d.utf8)
        }

        /// A JSON string: `"` and `\` escaped, control characters as \uXXXX (\n, \r, \t short).
        mutating func string(_ s: String) {
            bytes.append(UInt8(ascii: "\""))
            for b in s.utf8 {
                switch b {
                case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: Array("\\u00".utf8) + [hex[Int(b >> 4)], hex[Int(b & 0xF)]])
                default: bytes.append(b)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }
}
