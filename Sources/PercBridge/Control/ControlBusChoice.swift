// The `--control-bus system|session|ADDRESS|none` option of `serve` and `demo`.
import ArgumentParser

/// Where the service offers its control API, or nowhere.
enum ControlBusChoice: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
    case none
    case bus(DBusBus)

    init?(argument: String) {
        if argument == "none" { self = .none; return }
        guard let bus = try? DBusBus(parsing: argument) else { return nil }
        self = .bus(bus)
    }

    var description: String {
        switch self {
        case .none: "none"
        case .bus(let b): b.description
        }
    }

    static let help = ArgumentHelp(
        "Where to offer the control API (percbridge list/pair/define/…): system, session, a bus address, or none.",
        valueName: "system|session|ADDRESS|none")
}
