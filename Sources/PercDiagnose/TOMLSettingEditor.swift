// Sets keys in a TOML text by editing lines, so the user's comments, order and other keys stay as they were.
import Foundation
import PercRuntime

/// Edits one key of a config section at a time, a key ConfigSchema lists (its section, and the
/// values it takes): replaces the value where the key stands (as `key` under `[section]`, or
/// as the dotted `section.key` at the top), keeping a trailing comment; otherwise adds it at
/// the end of `[section]`, or a new `[section]` at the end.
struct TOMLSettingEditor {
    /// Why a setting was not written: no such key, or a value it does not take.
    struct Refusal: Error, CustomStringConvertible { var description: String }

    private(set) var lines: [String]

    init(text: String) { lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    var text: String { lines.joined(separator: "\n") }

    /// Sets `dottedKey` (`section.key`, as docs/configuration.md spells it) to `value`; refuses
    /// a key that is not a section's key in ConfigSchema, or a value outside its kind and bounds.
    mutating func set(_ dottedKey: String, to value: ConfigValue, comment: String) throws {
        guard let key = ConfigSchema.key(dottedKey), key.inputKinds.isEmpty else {
            throw Refusal(description: "\(dottedKey): not a key of a config section (docs/configuration.md lists them)")
        }
        if let refusal = key.value.refusal(of: value) {
            throw Refusal(description: "\(dottedKey): \(refusal); allowed: \(key.value.allowed)")
        }
        try set(section: key.section, name: key.name, literal: Self.literal(value), comment: comment)
    }

    private mutating func set(section table: String, name key: String, literal value: String, comment: String) throws {
        let dottedKey = "\(table).\(key)"
        var current = ""
        var tableHeader: Int?
        var lastInTable: Int?
        var inlineTable: Int?
        for (i, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                current = ConfigKeyLines.dottedName(line.trimmingCharacters(in: CharacterSet(charactersIn: "[] ")))
                if current == table && !line.hasPrefix("[[") { tableHeader = i; lastInTable = i }
                continue
            }
            guard !line.hasPrefix("#"), let eq = line.firstIndex(of: "=") else { continue }
            let k = ConfigKeyLines.dottedName(String(line[..<eq]))
            if current.isEmpty && k == table { inlineTable = i }
            if current == table { lastInTable = i }
            if (current == table && k == key) || (current.isEmpty && k == dottedKey) {
                lines[i] = Self.replacingValue(in: raw, with: value)
                return
            }
        }
        // `section = { … }` at the top: a `[section]` added below would define it twice (the
        // file would not load). Say what to do rather than write that.
        if let line = inlineTable {
            throw Refusal(description: "\(dottedKey): line \(line + 1) writes [\(table)] as an inline table (\(table) = { … }); write it as a [\(table)] section (one key per line) and run again, or set \(key) = \(value) inside it by hand")
        }
        let newLine = "\(key) = \(value)  # \(comment)"
        if tableHeader != nil, let at = lastInTable {
            lines.insert(newLine, at: at + 1)
        } else {
            while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
            lines += ["", "[\(table)]", newLine, ""]
        }
    }

    /// `value` as a TOML literal.
    private static func literal(_ value: ConfigValue) -> String {
        switch value {
        case let .integer(i): "\(i)"
        case let .number(x): "\(x)"
        case let .bool(b): "\(b)"
        case let .text(s):
            "\"" + s.unicodeScalars.map { c in
                switch c {
                case "\"": "\\\""
                case "\\": "\\\\"
                case "\n": "\\n"
                case "\t": "\\t"
                case "\r": "\\r"
                default: c.value < 0x20 || c.value == 0x7F ? String(format: "\\u%04X", c.value) : String(c)
                }
            }.joined() + "\""
        }
    }

    /// Keeps the indentation, the key, the `=` and a trailing `# comment` (outside strings).
    private static func replacingValue(in line: String, with value: String) -> String {
        guard let eq = line.firstIndex(of: "=") else { return line }
        let rest = line[line.index(after: eq)...]
        var inString: Character?
        var commentStart: String.Index?
        for i in rest.indices {
            let c = rest[i]
            if let q = inString { if c == q { inString = nil } } else if c == "\"" || c == "'" { inString = c } else if c == "#" { commentStart = i; break }
        }
        var out = String(line[...eq]) + " " + value
        if let c = commentStart { out += "  " + rest[c...] }
        return out
    }
}
