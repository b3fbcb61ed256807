// A validated D-Bus type signature such as `a{sv}` or `(oa{sa{sv}})`.

/// A D-Bus signature: zero or more complete types. Creating one checks the D-Bus rules
/// (known type codes, `{kv}` only directly inside `a`, basic key types, non-empty structs,
/// at most 255 characters and 32 levels of arrays and of structs).
public struct DBusSignature: RawRepresentable, Sendable, Hashable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    /// Nil when `rawValue` is not a valid signature.
    public init?(rawValue: String) {
        guard Self.completeTypes(of: rawValue) != nil else { return nil }
        self.rawValue = rawValue
    }

    /// Throws `DBusError` (`org.freedesktop.DBus.Error.InvalidSignature`) for a bad signature.
    public init(validating string: String) throws {
        guard let signature = DBusSignature(rawValue: string) else {
            throw DBusError(.invalidSignature, "'\(string)' is not a valid D-Bus signature")
        }
        self = signature
    }

    /// For literals in code; a bad literal is a programming error.
    public init(stringLiteral value: String) {
        guard Self.completeTypes(of: value) != nil else { preconditionFailure("invalid D-Bus signature literal '\(value)'") }
        self.rawValue = value
    }

    init(unchecked: String) { rawValue = unchecked }

    public var description: String { rawValue }

    /// The complete types this signature is made of (`sa{sv}as` → `s`, `a{sv}`, `as`).
    var completeTypes: [DBusSignature] {
        (Self.completeTypes(of: rawValue) ?? []).map(DBusSignature.init(unchecked:))
    }

    /// True for exactly one complete type (what a variant, an array element or a property holds).
    var isSingleCompleteType: Bool { completeTypes.count == 1 }

    /// Basic type codes: the only ones allowed as dictionary keys.
    static let basicCodes: Set<UInt8> = Set("ybnqiuxtdsogh".utf8)

    /// Splits `s` into complete types, or nil when it is not a valid signature.
    static func completeTypes(of s: String) -> [String]? {
        let bytes = Array(s.utf8)
        guard bytes.count <= 255 else { return nil }
        var types: [String] = []
        var i = 0
        while i < bytes.count {
            guard let end = parseOne(bytes, i, arrayDepth: 0, structDepth: 0) else { return nil }
            types.append(String(decoding: bytes[i..<end], as: UTF8.self))
            i = end
        }
        return types
    }

    /// Parses one complete type starting at `i`; returns the index after it.
    private static func parseOne(_ b: [UInt8], _ i: Int, arrayDepth: Int, structDepth: Int) -> Int? {
        guard i < b.count else { return nil }
        let c = b[i]
        if basicCodes.contains(c) || c == UInt8(ascii: "v") { return i + 1 }
        switch c {
        case UInt8(ascii: "a"):
            guard arrayDepth < 32, i + 1 < b.count else { return nil }
            if b[i + 1] == UInt8(ascii: "{") {
                // Dict entry: a basic key, one complete value type, then '}'.
                guard i + 2 < b.count, basicCodes.contains(b[i + 2]) else { return nil }
                guard let afterValue = parseOne(b, i + 3, arrayDepth: arrayDepth + 1, structDepth: structDepth + 1),
                      afterValue < b.count, b[afterValue] == UInt8(ascii: "}") else { return nil }
                return afterValue + 1
            }
            return parseOne(b, i + 1, arrayDepth: arrayDepth + 1, structDepth: structDepth)
        case UInt8(ascii: "("):
            guard structDepth < 32 else { return nil }
            var j = i + 1
            var fields = 0
            while j < b.count, b[j] != UInt8(ascii: ")") {
                guard let next = parseOne(b, j, arrayDepth: arrayDepth, structDepth: structDepth + 1) else { return nil }
                j = next
                fields += 1
            }
            guard j < b.count, fields > 0 else { return nil }
            return j + 1
        default:
            return nil
        }
    }
}
