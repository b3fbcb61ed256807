// What a PERC can be told to do (LED, vibration, beep) and its bytes in each profile.

/// An actuator command for a PERC, encoded per profile (PROTOCOLS.md §1 Actuator, §2 group 4).
public enum PercActuation: Hashable, Sendable {
    case ledOff
    case led(red: UInt8, green: UInt8, blue: UInt8)
    /// Vibrate for a while (PERC v1); the MTK profile only knows on/off and gets on.
    case vibrate(milliseconds: UInt16)
    case vibration(on: Bool)
    case beep(on: Bool)

    /// The bytes to write to the Actuator characteristic of PERC GATT v1, or nil when v1
    /// has no such command (beep; vibration off is a 0 ms vibration).
    var percV1Bytes: [UInt8]? {
        switch self {
        case .ledOff: [0]
        case .led(let r, let g, let b): [1, r, g, b]
        case .vibrate(let ms): [2, UInt8(ms & 0xFF), UInt8(ms >> 8)]
        case .vibration(let on): on ? [2, 0xF4, 0x01] : [2, 0, 0]
        case .beep: nil
        }
    }

    /// The MTK serial frame (group 4): `[4:0:<colour>]` LED as RRGGBB hex (`0` is off),
    /// `[4:1:1|0]` vibration, `[4:2:1|0]` beep.
    var mtkFrame: MTKFrame {
        switch self {
        case .ledOff: MTKFrame(group: 4, index: 0, value: "0")
        case .led(let r, let g, let b): MTKFrame(group: 4, index: 0, value: Self.hex(r) + Self.hex(g) + Self.hex(b))
        case .vibrate(let ms): MTKFrame(group: 4, index: 1, value: ms > 0 ? "1" : "0")
        case .vibration(let on): MTKFrame(group: 4, index: 1, value: on ? "1" : "0")
        case .beep(let on): MTKFrame(group: 4, index: 2, value: on ? "1" : "0")
        }
    }

    private static func hex(_ v: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(v >> 4)], digits[Int(v & 0xF)]])
    }
}
