// Sets keys in a TOML text by editing lines, so the user's comments, order and other keys stay as they were.
import Foundation

/// Edits one `table.key = value` at a time: replaces the value where the key stands (as
/// `key` under `[table]`, or as the dotted `table.key` at the top), keeping a trailing
/// comment; otherwise adds it at the end of `[table]`, or a new `[table]` at the end.
struct TOMLSettingEditor {
    private(set) var lines: [String]

    init(text: String) { lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    var text: String { lines.joined(separator: "\n") }

    /// Sets `dottedKey` (exactly one dot: `table.key`) to the TOML literal `value`.
    mutating func set(_ dottedKey: String, to value: String, comment: String) {
        let parts = dottedKey.split(separator: ".", maxSplits: 1).map(String.init)
        let (table, key) = (parts[0], parts[1])
        var current = ""
        var tableHeader: Int?
        var lastInTable: Int?
        for (i, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                current = Self.name(line.trimmingCharacters(in: CharacterSet(charactersIn: "[] ")))
                if current == table && !line.hasPrefix("[[") { tableHeader = i; lastInTable = i }
                continue
            }
            guard !line.hasPrefix("#"), let eq = line.firstIndex(of: "=") else { continue }
            let k = Self.name(String(line[..<eq]))
            if current == table { lastInTable = i }
            if (current == table && k == key) || (current.isEmpty && k == dottedKey) {
                lines[i] = Self.replacingValue(in: raw, with: value)
                return
            }
        }
        let newLine = "\(key) = \(value)  # \(comment)"
        if tableHeader != nil, let at = lastInTable {
            lines.insert(newLine, at: at + 1)
        } else {
            while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
            lines += ["", "[\(table)]", newLine, ""]
        }
    }

    /// `a . "b"` → `a.b`.
    private static func name(_ s: String) -> String {
        s.split(separator: ".").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'")) }
            .joined(separator: ".")
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
