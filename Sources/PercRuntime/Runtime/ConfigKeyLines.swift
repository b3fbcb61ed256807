// Finds the line of each key in a TOML text, so config errors can point at it.

/// TOMLKit does not report where a value stood, so this scans the text once for table
/// headers and `key =` lines. Array-of-tables entries are named `input[0]`, `input[1]`, ...
public struct ConfigKeyLines: Sendable {
    private var lines: [String: Int] = [:]

    init(text: String) {
        var table = ""
        var arrayCounts: [String: Int] = [:]
        var inMultilineString = false
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let quotes = line.components(separatedBy: "\"\"\"").count - 1
            if inMultilineString {
                if quotes % 2 == 1 { inMultilineString = false }
                continue
            }
            if quotes % 2 == 1 { inMultilineString = true }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[[") {
                let name = Self.dottedName(line.dropFirst(2).prefix { $0 != "]" })
                let n = arrayCounts[name, default: 0]
                arrayCounts[name] = n + 1
                table = "\(name)[\(n)]"
                lines[table] = index + 1
                lines[name] = lines[name] ?? index + 1
            } else if line.hasPrefix("[") {
                table = Self.dottedName(line.dropFirst().prefix { $0 != "]" })
                lines[table] = index + 1
            } else if let eq = line.firstIndex(of: "=") {
                let key = Self.dottedName(line[..<eq])
                lines[table.isEmpty ? key : "\(table).\(key)"] = index + 1
            }
        }
    }

    /// The line of `key` (dotted path), else of the nearest enclosing table that has one.
    func line(of key: String) -> Int? {
        var k = key
        while true {
            if let l = lines[k] { return l }
            guard let dot = k.lastIndex(of: ".") else { return nil }
            k = String(k[..<dot])
        }
    }

    /// A TOML key as docs/configuration.md spells it: `a . "b"` → `a.b`.
    public static func dottedName(_ s: some StringProtocol) -> String {
        s.split(separator: ".").map {
            $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        }.joined(separator: ".")
    }
}

import Foundation
