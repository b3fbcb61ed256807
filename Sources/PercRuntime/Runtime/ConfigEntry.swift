// One row of the config key table: a key, what it takes, and how its value goes into the settings.
import PercInput

/// A key of one TOML table and how it is read into `Root` (`ServiceConfig` for a section's
/// keys, `ServiceConfig.Input` for an `[[input]]`'s). An absent or refused key leaves the
/// value `Root` already has, its default. A `check` refuses a well-typed, in-range value for
/// a reason of its own (the problem; nil when fine), with the kind's allowed text.
struct ConfigEntry<Root>: Sendable {
    let name: String
    let value: ConfigValueKind
    let read: @Sendable (ConfigTableReader, inout Root) -> Void

    /// A number (float or integer) within `range`.
    static func number(_ name: String, _ path: WritableKeyPath<Root, Double> & Sendable,
                       _ range: ClosedRange<Double>, _ unit: String) -> Self {
        Self(name: name, value: .number(range, unit: unit)) { r, root in
            root[keyPath: path] = r.double(name, in: range, unit: unit, default: root[keyPath: path])
        }
    }

    /// A whole number within `range`; `check` may refuse one with an allowed text of its own.
    static func wholeNumber(_ name: String, _ path: WritableKeyPath<Root, Int> & Sendable, _ range: ClosedRange<Int>,
                            _ unit: String, check: (@Sendable (Int) -> (problem: String, allowed: String)?)? = nil) -> Self {
        Self(name: name, value: .wholeNumber(range, unit: unit)) { r, root in
            let x = r.int(name, in: range, unit: unit, default: root[keyPath: path])
            if let refused = check?(x) { r.fail(name, refused.problem, allowed: refused.allowed) } else { root[keyPath: path] = x }
        }
    }

    static func bool(_ name: String, _ path: WritableKeyPath<Root, Bool> & Sendable) -> Self {
        Self(name: name, value: .bool) { r, root in root[keyPath: path] = r.bool(name, default: root[keyPath: path]) }
    }

    /// A quoted string.
    static func text(_ name: String, _ path: WritableKeyPath<Root, String> & Sendable, allowed: String = "any text",
                     check: (@Sendable (String) -> String?)? = nil) -> Self {
        Self(name: name, value: .text(allowed: allowed)) { r, root in
            let s = r.string(name, allowed: allowed, default: root[keyPath: path])
            if let problem = check?(s) { r.fail(name, problem, allowed: allowed) } else { root[keyPath: path] = s }
        }
    }

    /// A quoted string into an optional, `fallback` when the key is absent.
    static func text(_ name: String, _ path: WritableKeyPath<Root, String?> & Sendable, allowed: String, fallback: String) -> Self {
        Self(name: name, value: .text(allowed: allowed)) { r, root in
            root[keyPath: path] = r.string(name, allowed: allowed, default: fallback)
        }
    }

    /// One of an enumeration's raw values.
    static func choice<E: RawRepresentable & CaseIterable & Sendable>(_ name: String, _ path: WritableKeyPath<Root, E> & Sendable) -> Self
    where E.RawValue == String {
        Self(name: name, value: .choice(E.allCases.map(\.rawValue))) { r, root in
            root[keyPath: path] = r.choice(name, default: root[keyPath: path])
        }
    }

    static func hostPort(_ name: String, _ path: WritableKeyPath<Root, HostPort> & Sendable, allowZeroPort: Bool = false) -> Self {
        Self(name: name, value: .hostPort(allowZeroPort: allowZeroPort)) { r, root in
            root[keyPath: path] = r.hostPort(name, allowZeroPort: allowZeroPort, default: root[keyPath: path]) ?? root[keyPath: path]
        }
    }

    /// `"HOST:PORT"` into an optional, `fallback` when the key is absent.
    static func hostPort(_ name: String, _ path: WritableKeyPath<Root, HostPort?> & Sendable, fallback: HostPort) -> Self {
        Self(name: name, value: .hostPort(allowZeroPort: false)) { r, root in
            root[keyPath: path] = r.hostPort(name, default: fallback)
        }
    }

    static func hostPorts(_ name: String, _ path: WritableKeyPath<Root, [HostPort]> & Sendable) -> Self {
        Self(name: name, value: .hostPorts) { r, root in root[keyPath: path] = r.hostPorts(name, default: root[keyPath: path]) }
    }

    /// A list of quoted strings, each checked by `check` (nil: fine, else why not).
    static func texts(_ name: String, _ path: WritableKeyPath<Root, [String]> & Sendable, allowed: String,
                      check: @escaping @Sendable (String) -> String?) -> Self {
        Self(name: name, value: .texts(allowed: allowed)) { r, root in
            root[keyPath: path] = r.strings(name, allowed: allowed, valid: check, default: root[keyPath: path])
        }
    }
}
