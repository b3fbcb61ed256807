// What `percbridge input inspect` prints about a decoded recording (text or JSON).
import Foundation
import MTKTangibles

/// What `percbridge input inspect` says about a recording (printed as text or JSON).
public struct RecordingReport: Codable, Sendable {
    public var device: String
    public var format: String
    var multitouchProtocol: String
    public var supported: Bool
    public var slots: Int
    /// `mm` (from the resolution or --surface) or `device units`.
    public var units: String
    var surfaceMM: Vec2?
    public var events: Int
    public var frames: Int
    public var durationSeconds: Double
    public var contactCount: Int
    public var maxSimultaneous: Int
    public var contacts: [ContactSummary.Contact]
    public var badInput: [BadInputLog.Entry]

    public init(_ d: DecodedRecording) {
        let s = ContactSummary(d.updates)
        device = d.recording.device.name
        format = d.recording.format.rawValue
        multitouchProtocol = d.recording.device.mtProtocol.rawValue
        supported = d.decoder.isSupported
        slots = d.recording.device.slotCount
        units = d.decoder.scale.source == .unknown ? "device units" : "mm"
        surfaceMM = d.decoder.scale.size
        events = d.recording.entries.count
        frames = d.decoder.reportCount
        let times = d.recording.entries.map(\.event.time)
        durationSeconds = (times.max() ?? 0) - (times.min() ?? 0)
        contactCount = s.contacts.count
        maxSimultaneous = s.maxSimultaneous
        // Times relative to the first event, so old epoch-stamped files read like new ones.
        let t0 = times.min() ?? 0
        contacts = s.contacts.map { c in
            var c = c
            c.begin -= t0
            c.end = c.end.map { $0 - t0 }
            return c
        }
        badInput = d.bad.sorted
    }

    public func json() -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? e.encode(self)) ?? Data(), as: UTF8.self)
    }

    public func text() -> String {
        func f(_ v: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", v) }
        var lines = [
            "device:      \(device) (\(format), multitouch protocol \(multitouchProtocol), \(slots) slots)",
            "units:       \(units)" + (surfaceMM.map { " (surface \(f($0.x)) x \(f($0.y)) mm)" } ?? " (no axis resolution: give --surface WxH for mm)"),
            "duration:    \(f(durationSeconds, 3)) s, \(events) events, \(frames) frames",
            "contacts:    \(contactCount), at most \(maxSimultaneous) at once",
        ]
        if !supported { lines.append("NOT DECODED: \(badInput.first { $0.kind == "unsupported device" }?.firstDetail ?? "unsupported device")") }
        for c in contacts {
            let end = c.end.map { f($0, 3) + " s" } ?? "still down"
            lines.append("  #\(c.id): \(f(c.begin, 3)) s → \(end), \(c.samples) samples, path \(f(c.pathLengthMM)) \(units == "mm" ? "mm" : "units"), (\(f(c.first.x)), \(f(c.first.y))) → (\(f(c.last.x)), \(f(c.last.y)))")
        }
        for b in badInput {
            lines.append("bad input:   \(b.kind) ×\(b.count), first at \(b.firstLocation)\(b.firstDetail.isEmpty ? "" : ": " + b.firstDetail)")
        }
        return lines.joined(separator: "\n")
    }
}
