// One decoder per PERC, whichever profile it speaks: notifications in, SensorEvents out.
import MTKTangibles

/// The profile-specific decoder of one PERC behind one interface.
enum PercDecoder: Sendable {
    case percV1(PercV1Decoder)
    case serial(MTKSerialDecoder)

    init(profile: PercProfile, tangible: TangibleID, lightWhiteValue: Int = 1) {
        switch profile {
        case .percV1: self = .percV1(PercV1Decoder(tangible: tangible))
        case .mtkSerial, .nordicUART: self = .serial(MTKSerialDecoder(tangible: tangible, lightWhiteValue: lightWhiteValue))
        }
    }

    var stats: NotificationStats {
        switch self {
        case .percV1(let d): d.stats
        case .serial(let d): d.stats
        }
    }

    /// True when the profile carries device time (latency can be measured).
    var hasDeviceTime: Bool {
        if case .percV1 = self { return true }
        return false
    }

    mutating func decode(_ bytes: some Collection<UInt8>, arrival: Seconds) -> [SensorEvent] {
        switch self {
        case .percV1(var d):
            let events = d.decode(bytes, arrival: arrival)
            self = .percV1(d)
            return events
        case .serial(var d):
            let events = d.decode(bytes, arrival: arrival)
            self = .serial(d)
            return events
        }
    }

    mutating func linkRestarted() {
        switch self {
        case .percV1(var d): d.linkRestarted(); self = .percV1(d)
        case .serial(var d): d.linkRestarted(); self = .serial(d)
        }
    }
}
