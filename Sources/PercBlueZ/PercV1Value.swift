// One PERC GATT v1 Sensor Event value (PROTOCOLS.md §1), parsed from its 11 bytes.

/// A parsed PERC GATT v1 Sensor Event value. Little-endian, 11 bytes; bytes beyond 11 are
/// ignored so that later minor versions can append fields.
struct PercV1Value: Hashable, Sendable {
    static let length = 11
    static let majorVersion: UInt8 = 1

    var flags: UInt8
    var sequence: UInt16
    var deviceTime: UInt32
    var field: UInt8
    var light: UInt8
    /// The raw light reading, only when the value says it is valid (flag bit 1).
    var lightRaw: UInt16?

    var heartbeat: Bool { flags & 0x1 != 0 }
    var batteryLow: Bool { flags & 0x4 != 0 }

    /// Why a value was rejected (counted per device, logged once).
    enum Rejection: Error, Hashable, Sendable, CustomStringConvertible {
        case tooShort(length: Int)
        case otherVersion(UInt8)

        var description: String {
            switch self {
            case .tooShort(let n): "value of \(n) bytes is shorter than the \(PercV1Value.length) of PERC GATT v1"
            case .otherVersion(let v): "value has major version \(v), this bridge speaks version \(PercV1Value.majorVersion)"
            }
        }
    }

    init(flags: UInt8, sequence: UInt16, deviceTime: UInt32, field: UInt8, light: UInt8, lightRaw: UInt16? = nil) {
        self.flags = flags; self.sequence = sequence; self.deviceTime = deviceTime
        self.field = field; self.light = light; self.lightRaw = lightRaw
    }

    init(parsing bytes: some Collection<UInt8>) throws(Rejection) {
        let b = Array(bytes.prefix(Self.length))
        guard b.count == Self.length else { throw .tooShort(length: bytes.count) }
        let version = b[0] >> 4
        guard version == Self.majorVersion else { throw .otherVersion(version) }
        flags = b[0] & 0x0F
        sequence = UInt16(b[1]) | UInt16(b[2]) << 8
        deviceTime = UInt32(b[3]) | UInt32(b[4]) << 8 | UInt32(b[5]) << 16 | UInt32(b[6]) << 24
        field = b[7]
        light = b[8]
        lightRaw = flags & 0x2 != 0 ? UInt16(b[9]) | UInt16(b[10]) << 8 : nil
    }

    /// The 11 bytes of this value (what firmware sends; used by tests and the emulator's peers).
    var bytes: [UInt8] {
        let raw = lightRaw ?? 0
        let f = (flags & 0x0D) | (lightRaw == nil ? 0 : 0x2)
        return [Self.majorVersion << 4 | f, UInt8(sequence & 0xFF), UInt8(sequence >> 8),
                UInt8(deviceTime & 0xFF), UInt8(deviceTime >> 8 & 0xFF), UInt8(deviceTime >> 16 & 0xFF),
                UInt8(deviceTime >> 24), field, light, UInt8(raw & 0xFF), UInt8(raw >> 8)]
    }
}
