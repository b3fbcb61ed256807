// The RSSI part of a tangible's link figures: what BlueZ reported, or why it reported nothing.
import PercBlueZ

/// RSSI values BlueZ reported for one PERC (`Device1.RSSI`, dBm). BlueZ takes them from
/// advertisements while some client discovers, so they describe the PERC while it was not
/// connected (or advertised anyway), not the link itself.
public struct RSSIFigures: Codable, Hashable, Sendable {
    public var count = 0
    var lastDBm: Int?
    var minDBm: Int?
    /// The middle value (the mean of the two middle ones for an even count).
    var medianDBm: Double?
    var maxDBm: Int?
    /// When the last value arrived, in seconds since the start of the data.
    var lastSeenAt: Double?
    /// Seconds from the last value to the end of the data (live: the latest frame).
    var lastSeenBeforeEnd: Double?
    /// What the values are, or why there are none.
    public var note: String

    public static let noneNote = "no RSSI reported: BlueZ reports RSSI only while discovering (from advertisements); "
        + "a connected PERC does not advertise, and the service discovers only while it looks for a PERC BlueZ does not know"
    static let sourceNote = "from advertisements BlueZ saw while discovering, not from the connection"

    public init(note: String = RSSIFigures.noneNote) { self.note = note }
}
