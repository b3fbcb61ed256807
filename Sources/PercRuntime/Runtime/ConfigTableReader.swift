// Reads typed, range-checked values out of one TOML table and remembers which keys it used.
import TOMLKit
import PercInput

/// Reads the keys of one table; every problem becomes a located `ConfigIssue`, and keys
/// nobody asked for are reported as unknown, so typos never pass silently. The allowed texts
/// are ConfigValueKind's, so the key table and the messages say the same.
final class ConfigTableReader {
    let path: String
    private let table: TOMLTable
    private let lines: ConfigKeyLines
    private let file: String
    private(set) var issues: [ConfigIssue] = []
    private var used: Set<String> = []

    init(table: TOMLTable, path: String, file: String, lines: ConfigKeyLines) {
        self.table = table; self.path = path; self.file = file; self.lines = lines
    }

    private func full(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func fail(_ key: String, _ problem: String, allowed: String?) {
        issues.append(ConfigIssue(file: file, line: lines.line(of: full(key)), key: full(key),
                                  problem: problem, allowed: allowed))
    }

    /// Whether the table holds `key`, without counting it as read.
    func has(_ key: String) -> Bool { table[key] != nil }

    private func value(_ key: String) -> (any TOMLValueConvertible)? {
        used.insert(key)
        return table[key]
    }

    private func describe(_ v: any TOMLValueConvertible) -> String {
        "a \(v.type) (\(v.debugDescription.prefix(40)))"
    }

    func double(_ key: String, in range: ClosedRange<Double>, unit: String, default d: Double) -> Double {
        let allowed = ConfigValueKind.number(range, unit: unit).allowed
        guard let v = value(key) else { return d }
        let x: Double? = v.double ?? v.int.map(Double.init)
        guard let x else {
            fail(key, "expected a number, found \(describe(v))", allowed: allowed)
            return d
        }
        guard x.isFinite, range.contains(x) else {
            fail(key, "\(x) is out of range", allowed: allowed)
            return d
        }
        return x
    }

    func int(_ key: String, in range: ClosedRange<Int>, unit: String, default d: Int) -> Int {
        let allowed = ConfigValueKind.wholeNumber(range, unit: unit).allowed
        guard let v = value(key) else { return d }
        guard let x = v.int else {
            fail(key, "expected a whole number, found \(describe(v))", allowed: allowed)
            return d
        }
        guard range.contains(x) else {
            fail(key, "\(x) is out of range", allowed: allowed)
            return d
        }
        return x
    }

    func bool(_ key: String, default d: Bool) -> Bool {
        guard let v = value(key) else { return d }
        guard let b = v.bool else {
            fail(key, "expected true or false, found \(describe(v))", allowed: ConfigValueKind.bool.allowed)
            return d
        }
        return b
    }

    func string(_ key: String, allowed: String = "any text", default d: String) -> String {
        guard let v = value(key) else { return d }
        guard let s = v.string else {
            fail(key, "expected a quoted string, found \(describe(v))", allowed: allowed)
            return d
        }
        return s
    }

    func optionalString(_ key: String, allowed: String) -> String? {
        guard table[key] != nil else { used.insert(key); return nil }
        return string(key, allowed: allowed, default: "")
    }

    func choice<E: RawRepresentable & CaseIterable>(_ key: String, default d: E) -> E where E.RawValue == String {
        let names = ConfigValueKind.choice(E.allCases.map(\.rawValue)).allowed
        guard let s = optionalString(key, allowed: names) else { return d }
        guard let e = E(rawValue: s) else {
            fail(key, "\"\(s)\" is not known", allowed: names)
            return d
        }
        return e
    }

    func hostPort(_ key: String, allowZeroPort: Bool = false, default d: HostPort?) -> HostPort? {
        let allowed = ConfigValueKind.hostPort(allowZeroPort: allowZeroPort).allowed
        guard let s = optionalString(key, allowed: allowed) else { return d }
        guard let hp = HostPort(parsing: s, allowZeroPort: allowZeroPort) else {
            fail(key, "\"\(s)\" is not HOST:PORT", allowed: allowed)
            return d
        }
        return hp
    }

    func hostPorts(_ key: String, default d: [HostPort]) -> [HostPort] {
        let allowed = ConfigValueKind.hostPorts.allowed
        guard let v = value(key) else { return d }
        guard let array = v.array else {
            fail(key, "expected a list, found \(describe(v))", allowed: allowed)
            return d
        }
        var out: [HostPort] = []
        for (i, element) in array.enumerated() {
            guard let s = element.string, let hp = HostPort(parsing: s) else {
                fail(key, "entry \(i + 1) (\(element.debugDescription)) is not HOST:PORT", allowed: allowed)
                continue
            }
            out.append(hp)
        }
        return out
    }

    /// A list of strings, each checked by `valid` (nil: fine, else why not).
    func strings(_ key: String, allowed: String, valid: (String) -> String? = { _ in nil }, default d: [String]) -> [String] {
        guard let v = value(key) else { return d }
        guard let array = v.array else {
            fail(key, "expected a list, found \(describe(v))", allowed: allowed)
            return d
        }
        var out: [String] = []
        for (i, element) in array.enumerated() {
            guard let s = element.string else {
                fail(key, "entry \(i + 1) (\(element.debugDescription.prefix(40))) is not a quoted string", allowed: allowed)
                continue
            }
            if let problem = valid(s) { fail(key, "entry \(i + 1) (\"\(s.prefix(80))\") \(problem)", allowed: allowed); continue }
            out.append(s)
        }
        return out
    }

    /// A sub-table, or nil (with an issue if the key holds something else).
    func table(_ key: String) -> TOMLTable? {
        guard let v = value(key) else { return nil }
        guard let t = v.table else {
            fail(key, "expected a table [\(full(key))], found \(describe(v))", allowed: "a [\(full(key))] section")
            return nil
        }
        return t
    }

    /// A list of tables (`[[key]]`), or nil.
    func tables(_ key: String) -> [TOMLTable]? {
        guard let v = value(key) else { return nil }
        guard let a = v.array else {
            fail(key, "expected [[\(full(key))]] sections, found \(describe(v))", allowed: "[[\(full(key))]] sections")
            return nil
        }
        var out: [TOMLTable] = []
        for element in a {
            if let t = element.table { out.append(t) } else {
                fail(key, "expected [[\(full(key))]] sections, found \(describe(element))", allowed: "[[\(full(key))]] sections")
            }
        }
        return out
    }

    /// Reports keys this reader was never asked for; call after reading.
    func finish() -> [ConfigIssue] {
        let known = used.sorted().joined(separator: ", ")
        for key in table.keys.sorted() where !used.contains(key) {
            fail(key, "unknown key", allowed: known)
        }
        return issues
    }
}
