// End-to-end support: writes an evemu recording of a multitouch table (protocol B) from contact steps.
import Foundation
import MTKTangibles

/// A touchscreen recording in evemu's text format with a header, 10 device units per mm
/// (the service maps units to mm by the configured surface size), so a test can play
/// touches at chosen surface positions through serve's `recording` input.
public struct EvemuScript {
    public let surface: Vec2
    private var events: [(Double, String)] = []
    private static let unitsPerMM = 10.0

    public init(surface: Vec2) { self.surface = surface }

    /// Contacts going down at `time` (seconds from the recording's start), one slot each.
    public mutating func down(at time: Double, _ contacts: [(slot: Int, id: Int, position: Vec2)]) {
        for c in contacts {
            add(time, "0003 002f \(c.slot)")
            add(time, "0003 0039 \(c.id)")
            add(time, "0003 0035 \(Int((c.position.x * Self.unitsPerMM).rounded()))")
            add(time, "0003 0036 \(Int((c.position.y * Self.unitsPerMM).rounded()))")
        }
        add(time, "0001 014a 1")
        add(time, "0000 0000 0")
    }

    public mutating func up(at time: Double, slots: [Int]) {
        for s in slots {
            add(time, "0003 002f \(s)")
            add(time, "0003 0039 -1")
        }
        add(time, "0000 0000 0")
    }

    private mutating func add(_ time: Double, _ event: String) { events.append((time, event)) }

    public var text: String {
        let maxX = Int(surface.x * Self.unitsPerMM), maxY = Int(surface.y * Self.unitsPerMM)
        var lines = [
            "# EVEMU 1.3", "N: PercBridge test table", "I: 0018 0000 0000 0000",
            "P: 02 00 00 00 00 00 00 00",
            "A: 00 0 \(maxX) 0 0 0", "A: 01 0 \(maxY) 0 0 0",
            "A: 2f 0 9 0 0 0", "A: 35 0 \(maxX) 0 0 0", "A: 36 0 \(maxY) 0 0 0", "A: 39 0 65535 0 0 0",
        ]
        for (t, e) in events { lines.append(String(format: "E: %.6f ", 1000 + t) + e) }
        return lines.joined(separator: "\n") + "\n"
    }
}
