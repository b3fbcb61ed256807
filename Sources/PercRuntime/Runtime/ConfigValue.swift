// One value a program sets in a config file (`diagnose --apply`), checked against the key's kind.

/// A scalar value for a config key, as the TOML editor writes it.
public enum ConfigValue: Hashable, Sendable, CustomStringConvertible {
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case text(String)

    public var description: String {
        switch self {
        case let .integer(i): "\(i)"
        case let .number(x): "\(x)"
        case let .bool(b): "\(b)"
        case let .text(s): "\"\(s.prefix(40))\""
        }
    }
}
