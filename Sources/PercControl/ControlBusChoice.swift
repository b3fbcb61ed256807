// The `--control-bus system|session|ADDRESS|none` option of `serve` and `demo`.
import PercSystem

/// Where the service offers its control API, or nowhere.
public enum ControlBusChoice: Sendable, Hashable, CustomStringConvertible {
    case none
    case bus(DBusBus)

    /// `none`, `system`, `session` or a bus address; nil for anything else.
    public init?(argument: String) {
        if argument == "none" { self = .none; return }
        guard let bus = try? DBusBus(parsing: argument) else { return nil }
        self = .bus(bus)
    }

    public var description: String {
        switch self {
        case .none: "none"
        case .bus(let b): b.description
        }
    }
}
