// One typed OSC argument (OSC 1.0 required types plus the common non-standard ones).

/// One argument of an OSC message. The type tag of each case is in `typeTag`.
public enum OSCArgument: Hashable, Sendable {
    case int32(Int32)          // i
    case float32(Float)        // f
    case string(String)        // s
    case blob([UInt8])         // b
    case timeTag(OSCTimeTag)   // t
    case int64(Int64)          // h
    case double(Double)        // d
    case symbol(String)        // S
    case char(UInt8)           // c (an ASCII character in a 32-bit word)
    case rgba(UInt32)          // r
    case midi(UInt32)          // m (port, status, data1, data2)
    case bool(Bool)            // T / F (no data)
    case null                  // N (no data)
    case impulse               // I (no data)

    var typeTag: UInt8 {
        switch self {
        case .int32: UInt8(ascii: "i")
        case .float32: UInt8(ascii: "f")
        case .string: UInt8(ascii: "s")
        case .blob: UInt8(ascii: "b")
        case .timeTag: UInt8(ascii: "t")
        case .int64: UInt8(ascii: "h")
        case .double: UInt8(ascii: "d")
        case .symbol: UInt8(ascii: "S")
        case .char: UInt8(ascii: "c")
        case .rgba: UInt8(ascii: "r")
        case .midi: UInt8(ascii: "m")
        case .bool(let b): b ? UInt8(ascii: "T") : UInt8(ascii: "F")
        case .null: UInt8(ascii: "N")
        case .impulse: UInt8(ascii: "I")
        }
    }

    /// The value as a Double for numeric arguments (i, f, h, d), else nil. TUIO senders
    /// disagree on i vs f for some fields; readers use this to accept both.
    var numericValue: Double? {
        switch self {
        case .int32(let v): Double(v)
        case .float32(let v): Double(v)
        case .int64(let v): Double(v)
        case .double(let v): v
        default: nil
        }
    }

    /// The integer value for integral arguments (i, h), else nil.
    public var integerValue: Int64? {
        switch self {
        case .int32(let v): Int64(v)
        case .int64(let v): v
        default: nil
        }
    }

    /// The text of string-like arguments (s, S), else nil.
    public var stringValue: String? {
        switch self {
        case .string(let s), .symbol(let s): s
        default: nil
        }
    }
}
