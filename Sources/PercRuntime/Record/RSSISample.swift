// One RSSI value BlueZ reported for a registered PERC (Device1.RSSI), with when it arrived.
import MTKTangibles
import PercBlueZ

/// What `Device1.RSSI` said about a registered PERC. BlueZ takes RSSI from advertisements
/// while some client discovers (inquiry or advertising); a connected PERC usually does not
/// advertise, so most sessions have few or none. Recorded as the `rssi` kind
/// (docs/recording-format.md); not a frame input, so replay ignores it.
public struct RSSISample: Codable, Hashable, Sendable {
    /// dBm a receiver can report (Bluetooth Core: −127 to +20; BlueZ's 0 and 127 mean none).
    public static let validDBm = -127...20

    public var tangible: TangibleID
    /// The device's Bluetooth address as BlueZ spells it.
    public var address: String
    public var dBm: Int
    /// When the value came off the bus (seconds, CLOCK_MONOTONIC: the service's timeline).
    public var arrival: Seconds

    public init(tangible: TangibleID, address: String, dBm: Int, arrival: Seconds) {
        self.tangible = tangible; self.address = address; self.dBm = dBm; self.arrival = arrival
    }

    /// Whether BlueZ's value is a reading at all (0 is BlueZ's "no RSSI", 127 the HCI "invalid").
    public static func isReading(_ dBm: Int) -> Bool { dBm != 0 && validDBm.contains(dBm) }

    private enum Key: String, CodingKey { case tangible, address, dBm, arrival }

    /// Refuses values no receiver reports and times that are not finite: such a line is
    /// counted as unreadable, never shown as a reading.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        tangible = try c.decode(TangibleID.self, forKey: .tangible)
        address = try c.decodeIfPresent(String.self, forKey: .address) ?? ""
        dBm = try c.decode(Int.self, forKey: .dBm)
        arrival = try c.decode(Double.self, forKey: .arrival)
        guard Self.isReading(dBm) else {
            throw DecodingError.dataCorruptedError(forKey: .dBm, in: c, debugDescription: "RSSI \(dBm) dBm is outside -127…20 (or BlueZ's 0)")
        }
        guard arrival.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: .arrival, in: c, debugDescription: "arrival is not a finite time")
        }
    }
}
