// What one config key holds and which values it takes; the "allowed" text every problem with it prints.
import PercInput

/// A config key's type and bounds, as the parser checks them and the TOML editor and the docs use them.
public enum ConfigValueKind: Hashable, Sendable {
    /// A TOML float or integer within the range.
    case number(ClosedRange<Double>, unit: String)
    /// A TOML integer within the range.
    case wholeNumber(ClosedRange<Int>, unit: String)
    case bool
    /// A quoted string; `allowed` says which.
    case text(allowed: String)
    /// One of these quoted strings.
    case choice([String])
    /// A quoted `"HOST:PORT"`; port 0 only where the key lets the system pick.
    case hostPort(allowZeroPort: Bool)
    /// A list of quoted `"HOST:PORT"`.
    case hostPorts
    /// A list of quoted strings; `allowed` says which.
    case texts(allowed: String)

    /// What `config check` prints after `allowed:` for this key.
    public var allowed: String {
        switch self {
        case let .number(range, unit): "\(range.lowerBound) to \(range.upperBound) \(unit)"
        case let .wholeNumber(range, unit): "\(range.lowerBound) to \(range.upperBound) \(unit)"
        case .bool: "true, false"
        case let .text(allowed), let .texts(allowed): allowed
        case let .choice(names): names.map { "\"\($0)\"" }.joined(separator: ", ")
        case .hostPort: "\"HOST:PORT\" (e.g. \"127.0.0.1:3333\", \"[::1]:3333\"), port 1 to 65535"
        case .hostPorts: "a list of \"HOST:PORT\" strings, e.g. [\"127.0.0.1:3333\"]"
        }
    }

    /// Why the key would refuse `v` (nil: it takes it), in the words `config check` uses. A
    /// key's own checks (an absolute path, a bus address) are the parser's alone.
    public func refusal(of v: ConfigValue) -> String? {
        switch (self, v) {
        case let (.number(range, _), .integer(i)): range.contains(Double(i)) ? nil : "\(Double(i)) is out of range"
        case let (.number(range, _), .number(x)): x.isFinite && range.contains(x) ? nil : "\(x) is out of range"
        case let (.wholeNumber(range, _), .integer(i)): range.contains(i) ? nil : "\(i) is out of range"
        case (.bool, .bool), (.text, .text): nil
        case let (.choice(names), .text(s)): names.contains(s) ? nil : "\(v) is not known"
        case let (.hostPort(zero), .text(s)): HostPort(parsing: s, allowZeroPort: zero) != nil ? nil : "\(v) is not HOST:PORT"
        default: "expected \(expected), found \(v)"
        }
    }

    private var expected: String {
        switch self {
        case .number: "a number"
        case .wholeNumber: "a whole number"
        case .bool: "true or false"
        case .text, .choice, .hostPort: "a quoted string"
        case .hostPorts, .texts: "a list"
        }
    }

    /// The bounds of a number key, else nil.
    public var bounds: ClosedRange<Double>? {
        switch self {
        case let .number(range, _): range
        case let .wholeNumber(range, _): Double(range.lowerBound)...Double(range.upperBound)
        default: nil
        }
    }
}
