// One decoder for every JSON touch input: the MTK TCP feed (`Touches`), JSON over UDP, and the
// app protocol's `contacts` message. The exact accepted format is in docs/inputs.md.
import Foundation
import MTKTangibles

/// Decodes JSON touch messages into ContactUpdates, validating each contact at the edge.
///
/// Accepted documents (one per call):
/// - MTK feed: `{"Touches": [{"traceID": 3, "state": "beginning"|"moving"|"ending",
///   "position": {"x": 10, "y": 20} (or [10, 20]), "timestamp": 12.5, "size": 8,
///   "majorAxis": 9, "minorAxis": 7, "rotation": 0.3}, …]}`
/// - app protocol: `{"type": "contacts", "contacts": [{"id": 3, "phase": "begin"|"move"|"end",
///   "x": 10, "y": 20, "major": 9, "minor": 7, "orientation": 0.3}], "app_time": 12.5}`
/// Positions and sizes are in surface units times `unitScale` mm (default: millimetres);
/// angles in radians. Times: the sender's `timestamp`/`app_time` (seconds, any epoch) is
/// mapped onto the monotonic timeline by the smallest offset seen, allowed to age and
/// re-anchored when the sender's clock steps (`SenderClock`; no sample is placed after its
/// arrival); without one, the arrival time is used.
public struct JSONContactDecoder: Sendable {
    public let origin: InputOrigin
    public let surfaceSize: Vec2?
    let unitScale: Double
    public var bad = BadInputLog()
    public private(set) var messages = 0
    /// Contacts down now: the time and place of each one's last sample.
    private var active: [Int64: (time: Seconds, position: Vec2)] = [:]
    private var senderClock = SenderClock()

    static let maxContactsPerMessage = 256
    /// Contacts down at once per sender (a sender that never ends its contacts cannot grow
    /// this table, nor the engine's traces, without bound; docs/security.md).
    static let maxActiveContacts = 256

    public init(origin: InputOrigin, surfaceSize: Vec2? = nil, unitScale: Double = 1) {
        self.origin = origin; self.surfaceSize = surfaceSize; self.unitScale = unitScale
    }

    /// Decodes one JSON document. Returns false (and counts it) when the whole message is bad;
    /// single bad contacts are counted and skipped.
    @discardableResult
    public mutating func decode(_ data: Data, arrival: Seconds, location: String = "", into out: inout [ContactUpdate]) -> Bool {
        messages += 1
        let at = location.isEmpty ? "\(origin) message #\(messages)" : location
        guard let root = try? JSONDecoder().decode(JSONValue.self, from: data), root.isObject else {
            bad.record("malformed JSON", at: at, "not a JSON object")
            return false
        }
        if let touches = root["Touches"] ?? root["touches"] {
            guard let list = touches.array, list.allSatisfy(\.isObject) else { bad.record("malformed JSON", at: at, "\"Touches\" must be an array of objects"); return false }
            return decodeList(list, mtk: true, senderTime: nil, arrival: arrival, at: at, into: &out)
        }
        if root["type"]?.string == "contacts" {
            guard let list = root["contacts"]?.array, list.allSatisfy(\.isObject) else { bad.record("malformed JSON", at: at, "\"contacts\" must be an array of objects"); return false }
            return decodeList(list, mtk: false, senderTime: root["app_time"]?.number, arrival: arrival, at: at, into: &out)
        }
        bad.record("unknown JSON message", at: at, "expected a \"Touches\" array or {\"type\": \"contacts\"}")
        return false
    }

    private mutating func decodeList(_ list: [JSONValue], mtk: Bool, senderTime: Double?, arrival: Seconds, at: String,
                                     into out: inout [ContactUpdate]) -> Bool {
        guard list.count <= Self.maxContactsPerMessage else {
            bad.record("too many contacts in one message", at: at, "\(list.count) > \(Self.maxContactsPerMessage)")
            return false
        }
        for (i, c) in list.enumerated() {
            let here = "\(at) contact #\(i)"
            guard let id = integer(c[mtk ? "traceID" : "id"]) else { bad.record("contact without integer id", at: here); continue }
            guard let phaseName = c[mtk ? "state" : "phase"]?.string?.lowercased(), let phase0 = Self.phase(phaseName) else {
                bad.record("contact with unknown state", at: here, "expected \(mtk ? "beginning|moving|ending" : "begin|move|end")"); continue
            }
            var x: Double?, y: Double?
            if mtk, let p = c["position"] {
                if p.isObject { x = p["x"]?.number; y = p["y"]?.number }
                else if let a = p.array, a.count == 2 { x = a[0].number; y = a[1].number }
            } else { x = c["x"]?.number; y = c["y"]?.number }
            guard let x, let y else { bad.record("contact without numeric position", at: here); continue }
            let pos = Vec2(x: x * unitScale, y: y * unitScale)
            if let s = surfaceSize, !((0...s.x).contains(pos.x) && (0...s.y).contains(pos.y)) {
                bad.record("contact outside the surface", at: here, "(\(pos.x), \(pos.y)) mm not within \(s.x) x \(s.y)"); continue
            }
            let size = c["size"]?.number
            let majorV = c[mtk ? "majorAxis" : "major"] ?? c["major"], minorV = c[mtk ? "minorAxis" : "minor"] ?? c["minor"]
            let angleV = c[mtk ? "rotation" : "orientation"]
            let major = majorV?.number ?? size, minor = minorV?.number ?? size, orientation = angleV?.number
            // Present but not a finite number (null is "not given").
            let invalid = [c["size"], majorV, minorV, angleV].contains { v in v.map { $0 != .null && $0.number == nil } ?? false }
            if invalid {
                bad.record("contact with a non-finite size or angle", at: here); continue
            }
            let stamp = mtk ? c["timestamp"]?.number : senderTime
            if mtk, let t = c["timestamp"], t != .null, stamp == nil { bad.record("contact with a non-numeric timestamp", at: here); continue }
            var time = arrival
            if let stamp { time = senderClock.time(stamp: stamp, arrival: arrival) }
            var phase = phase0
            switch (phase, active[id]) {
            case (.begin, .some): bad.record("begin of a contact already down", at: here, "id \(id)"); phase = .move
            case (.move, .none): bad.record("move of a contact that never began", at: here, "id \(id)"); phase = .begin
            case (.end, .none): bad.record("end of a contact that never began", at: here, "id \(id)"); continue
            default: break
            }
            if phase == .begin, active.count >= Self.maxActiveContacts {
                bad.record("too many contacts down at once", at: here, "\(Self.maxActiveContacts) are down; id \(id) is ignored"); continue
            }
            if let last = active[id]?.time, time < last {
                bad.record("contact time went backwards", at: here, "id \(id)"); continue
            }
            if phase == .end { active[id] = nil } else { active[id] = (time, pos) }
            out.append(ContactUpdate(origin: origin, contactID: id, phase: phase, position: pos,
                                     major: major.map { $0 * unitScale }, minor: minor.map { $0 * unitScale }, orientation: orientation,
                                     time: time, arrival: arrival))
        }
        return true
    }

    /// The sender went away (its connection closed, the app disconnected): an end for every
    /// contact it left down, where it was last seen, so no trace of it stays on the surface
    /// for ever (the engine ends a trace only when told to).
    public mutating func endAll(at time: Seconds) -> [ContactUpdate] {
        defer { active.removeAll() }
        return active.sorted { $0.key < $1.key }.map { id, last in
            ContactUpdate(origin: origin, contactID: id, phase: .end, position: last.position,
                          time: Swift.max(time, last.time), arrival: time)
        }
    }

    /// Contacts down now.
    public var activeCount: Int { active.count }

    static func phase(_ s: String) -> ContactUpdate.Phase? {
        switch s {
        case "begin", "began", "beginning", "down", "start": .begin
        case "move", "moved", "moving", "stationary", "update": .move
        case "end", "ended", "ending", "up", "cancelled", "canceled": .end
        default: nil
        }
    }

    private func integer(_ v: JSONValue?) -> Int64? {
        guard let d = v?.number, d == d.rounded(), abs(d) < 9e15 else { return nil }
        return Int64(d)
    }
}
