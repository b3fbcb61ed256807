// OSC time tags: 64-bit NTP timestamps (seconds since 1900 in the upper 32 bits, binary fraction below).

/// An OSC 1.0 time tag. The raw value is the NTP 64-bit fixed-point time; the special value 1
/// means "immediately".
public struct OSCTimeTag: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var raw: UInt64

    /// Seconds between the NTP epoch (1900-01-01) and the Unix epoch (1970-01-01).
    static let unixEpochOffset: UInt64 = 2_208_988_800
    public static let immediately = OSCTimeTag(raw: 1)

    public init(raw: UInt64) { self.raw = raw }

    /// A time tag for `seconds` since the Unix epoch (fractions rounded to 1/2^32 s).
    /// Values outside NTP era 0 (1900...2036) are clamped to it.
    public init(unixSeconds: Double) {
        let ntp = unixSeconds + Double(Self.unixEpochOffset)
        guard ntp.isFinite, ntp > 0 else { self.raw = 0; return }
        guard ntp < 4_294_967_296 else { self.raw = UInt64.max; return }
        let whole = ntp.rounded(.down)
        let fraction = min(((ntp - whole) * 4_294_967_296).rounded(), 4_294_967_295)
        self.raw = UInt64(whole) << 32 | UInt64(fraction)
    }

    public var seconds: UInt32 { UInt32(truncatingIfNeeded: raw >> 32) }
    public var fraction: UInt32 { UInt32(truncatingIfNeeded: raw) }
    /// Seconds since the Unix epoch (negative for times before 1970).
    public var unixSeconds: Double {
        Double(seconds) - Double(Self.unixEpochOffset) + Double(fraction) / 4_294_967_296
    }

    public static func < (a: OSCTimeTag, b: OSCTimeTag) -> Bool { a.raw < b.raw }
    public var description: String { raw == 1 ? "immediately" : "ntp(\(seconds).\(fraction))" }
}
