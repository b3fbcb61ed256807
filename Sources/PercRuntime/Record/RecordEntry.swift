// One line of a recording after the header: an input, a frame tick, definitions, a calibration, an RSSI reading, or a result digest.
import MTKTangibles

/// A recorded event. Encoded as one JSON object per line with a `kind` field.
public enum RecordEntry: Hashable, Sendable {
    case contact(ContactUpdate)
    case sensor(SensorEvent)
    case presented(PresentedOverlay)
    /// The frame clock cut frame `number` at `time`: everything recorded since the previous
    /// tick belongs to it, in the recorded order. `drawing`: whether an app that draws the
    /// overlay was there (written only when false; older recordings read as true).
    case frame(number: UInt64, time: Seconds, drawing: Bool = true)
    /// The tangible definitions in effect from here on (the engine needs them to replay).
    case definitions([TangibleDefinition])
    /// A digest of what the live run produced for a frame, for replay to compare against.
    case result(frame: UInt64, digest: String)
    /// A calibration started or cancelled between two frames (replay applies it there).
    case calibration(SchedulerCommand)
    /// An RSSI value BlueZ reported for a registered PERC (diagnose only; not a frame input).
    case rssi(RSSISample)
}

extension RecordEntry: Codable {
    private enum Key: String, CodingKey { case kind, contact, sensor, presented, number, time, drawing, definitions, frame, digest, calibration, rssi }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let kind = try c.decode(String.self, forKey: .kind)
        switch kind {
        case "contact": self = .contact(try c.decode(ContactUpdate.self, forKey: .contact))
        case "sensor": self = .sensor(try c.decode(SensorEvent.self, forKey: .sensor))
        case "presented": self = .presented(try c.decode(PresentedOverlay.self, forKey: .presented))
        case "frame":
            self = .frame(number: try c.decode(UInt64.self, forKey: .number), time: try c.decode(Double.self, forKey: .time),
                          drawing: try c.decodeIfPresent(Bool.self, forKey: .drawing) ?? true)
        case "definitions": self = .definitions(try c.decode([TangibleDefinition].self, forKey: .definitions))
        case "result": self = .result(frame: try c.decode(UInt64.self, forKey: .frame), digest: try c.decode(String.self, forKey: .digest))
        case "calibration": self = .calibration(try c.decode(SchedulerCommand.self, forKey: .calibration))
        case "rssi": self = .rssi(try c.decode(RSSISample.self, forKey: .rssi))
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown kind \"\(kind.prefix(40))\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .contact(let u): try c.encode("contact", forKey: .kind); try c.encode(u, forKey: .contact)
        case .sensor(let e): try c.encode("sensor", forKey: .kind); try c.encode(e, forKey: .sensor)
        case .presented(let p): try c.encode("presented", forKey: .kind); try c.encode(p, forKey: .presented)
        case .frame(let n, let t, let drawing):
            try c.encode("frame", forKey: .kind); try c.encode(n, forKey: .number); try c.encode(t, forKey: .time)
            if !drawing { try c.encode(false, forKey: .drawing) }
        case .definitions(let d): try c.encode("definitions", forKey: .kind); try c.encode(d, forKey: .definitions)
        case .result(let f, let d): try c.encode("result", forKey: .kind); try c.encode(f, forKey: .frame); try c.encode(d, forKey: .digest)
        case .calibration(let k): try c.encode("calibration", forKey: .kind); try c.encode(k, forKey: .calibration)
        case .rssi(let r): try c.encode("rssi", forKey: .kind); try c.encode(r, forKey: .rssi)
        }
    }
}
