// Runs a whole evdev recording through the MT decoder (for inspect, replay and tests).
import MTKTangibles

/// A recording and the contact updates its events decode to.
public struct DecodedRecording: Sendable {
    public var recording: EvdevRecording
    public var updates: [ContactUpdate]
    public var decoder: MTDecoder
    /// Bad input of parsing and decoding together.
    public var bad: BadInputLog
}

/// Runs a whole evdev recording through `MTDecoder` (for inspect, replay and tests).
public enum RecordingDecoder {
    /// Decodes every event. Arrival times equal the recorded times (there is no live clock).
    public static func decode(_ rec: EvdevRecording, surfaceSize: Vec2? = nil) -> DecodedRecording {
        var d = MTDecoder(device: rec.device, origin: InputOrigin(kind: .recording, device: rec.device.name),
                          surfaceSize: surfaceSize, sourceName: rec.sourceName, canResync: false)
        var out: [ContactUpdate] = []
        out.reserveCapacity(rec.entries.count / 2)
        for e in rec.entries { d.feed(e.event, arrival: e.event.time, line: e.line, into: &out) }
        var bad = rec.bad
        bad.merge(d.bad)
        return DecodedRecording(recording: rec, updates: out, decoder: d, bad: bad)
    }
}
