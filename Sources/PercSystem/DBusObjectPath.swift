// A validated D-Bus object path such as `/org/bluez/hci0`.

/// A D-Bus object path. Creating one checks the D-Bus rules (leading `/`, elements of
/// `[A-Za-z0-9_]`, no empty element, no trailing `/` except for the root).
public struct DBusObjectPath: RawRepresentable, Sendable, Hashable, Comparable,
    CustomStringConvertible, ExpressibleByStringLiteral
{
    public let rawValue: String

    /// Nil when `rawValue` is not a valid object path.
    public init?(rawValue: String) {
        guard Self.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// Throws `DBusError` (`org.freedesktop.DBus.Error.InvalidArgs`) for an invalid path.
    public init(validating string: String) throws {
        guard let path = DBusObjectPath(rawValue: string) else {
            throw DBusError(.invalidArgs, "'\(string)' is not a valid D-Bus object path (use /a/b_c, elements of A-Z a-z 0-9 _)")
        }
        self = path
    }

    /// For literals in code; a bad literal is a programming error.
    public init(stringLiteral value: String) {
        guard Self.isValid(value) else { preconditionFailure("invalid D-Bus object path literal '\(value)'") }
        self.rawValue = value
    }

    init(unchecked: String) { rawValue = unchecked }

    public static let root = DBusObjectPath(unchecked: "/")

    public var description: String { rawValue }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// True when `self` is `other` or lies below it (`/org/bluez/hci0` is below `/org/bluez`).
    public func isWithin(_ other: DBusObjectPath) -> Bool {
        if other.rawValue == "/" || other == self { return true }
        return rawValue.hasPrefix(other.rawValue + "/")
    }

    /// The path with one more element appended (`element` is sanitised to `[A-Za-z0-9_]`).
    public func appending(_ element: String) -> DBusObjectPath {
        let clean = String(element.unicodeScalars.map { Self.isElementScalar($0) ? Character($0) : "_" })
        let base = rawValue == "/" ? "" : rawValue
        return DBusObjectPath(unchecked: base + "/" + (clean.isEmpty ? "_" : clean))
    }

    static func isElementScalar(_ s: Unicode.Scalar) -> Bool {
        switch s {
        case "A"..."Z", "a"..."z", "0"..."9", "_": true
        default: false
        }
    }

    static func isValid(_ s: String) -> Bool {
        if s == "/" { return true }
        guard s.hasPrefix("/"), !s.hasSuffix("/") else { return false }
        let elements = s.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        return elements.allSatisfy { !$0.isEmpty && $0.unicodeScalars.allSatisfy(isElementScalar) }
    }
}
