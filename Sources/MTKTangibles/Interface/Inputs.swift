// The values that flow from the edges (touch inputs, BLE links, the app) into the pure core.

/// Numeric id of a tangible in the registry (also the TUIO class id).
public typealias TangibleID = Int

/// Where a touch came from. Traces of different sources are never combined into one tangible.
public struct InputOrigin: Hashable, Sendable, Codable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable, Codable {
        case evdev, tuio, json, simulator, recording
    }
    public var kind: Kind
    /// The device or sender name (e.g. the evdev device name, or `host:port`).
    public var device: String

    public init(kind: Kind, device: String) { self.kind = kind; self.device = device }
    public var description: String { "\(kind.rawValue):\(device)" }
}

/// One sample of one contact, as an input source decoded it (before framing).
public struct ContactUpdate: Hashable, Sendable, Codable {
    public enum Phase: String, Hashable, Sendable, Codable { case begin, move, end }

    public var origin: InputOrigin
    /// The source's own id of the contact (slot tracking id, TUIO session id, JSON traceID).
    public var contactID: Int64
    public var phase: Phase
    /// Position on the surface in millimetres.
    public var position: Vec2
    /// Raw device coordinates, if the source has them.
    public var raw: Vec2?
    /// Touch ellipse in millimetres and its orientation in radians, if known.
    public var major: Double?
    public var minor: Double?
    public var orientation: Double?
    /// The sender's time of the sample (kernel event time, TUIO frame time), on the
    /// monotonic timeline where the source allows it.
    public var time: Seconds
    /// When the service received it (CLOCK_MONOTONIC).
    public var arrival: Seconds

    public init(origin: InputOrigin, contactID: Int64, phase: Phase, position: Vec2, raw: Vec2? = nil,
                major: Double? = nil, minor: Double? = nil, orientation: Double? = nil,
                time: Seconds, arrival: Seconds) {
        self.origin = origin; self.contactID = contactID; self.phase = phase; self.position = position
        self.raw = raw; self.major = major; self.minor = minor; self.orientation = orientation
        self.time = time; self.arrival = arrival
    }
}

/// What a PERC's sensor (or its link) reported.
public enum SensorKind: String, Hashable, Sendable, Codable, CaseIterable {
    /// Field (surface) sensor: value 1 on the surface, 0 off.
    case field
    /// Light sensor: value 1 white, 0 black (after the tangible's polarity setting).
    case light
    /// Battery level in percent (0...100).
    case battery
    /// A heartbeat notification without a sensor change (PERC GATT v1).
    case heartbeat
    /// The BLE link: value 1 connected (in range), 0 lost (not in range).
    case link
}

/// One typed sensor notification of a PERC (issue 2), on the frame clock.
public struct SensorEvent: Hashable, Sendable, Codable {
    public var tangible: TangibleID
    public var kind: SensorKind
    public var value: Int
    /// Sequence number (PERC GATT v1); nil for the MTK serial profile.
    public var sequence: UInt16?
    /// Device time in microseconds, free running (PERC GATT v1); nil where the profile has none.
    public var deviceTime: UInt32?
    /// When the service received it (CLOCK_MONOTONIC).
    public var arrival: Seconds

    public init(tangible: TangibleID, kind: SensorKind, value: Int, sequence: UInt16? = nil,
                deviceTime: UInt32? = nil, arrival: Seconds) {
        self.tangible = tangible; self.kind = kind; self.value = value
        self.sequence = sequence; self.deviceTime = deviceTime; self.arrival = arrival
    }
}
