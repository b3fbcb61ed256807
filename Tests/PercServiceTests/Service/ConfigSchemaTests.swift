// The config key table against the docs: a key added to the example, the docs' list or the table alone fails here.
import Foundation
import Testing
@testable import PercRuntime
@testable import PercDiagnose

@Suite struct ConfigSchemaTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs")

    static let table = Set(ConfigSchema.keys.map(\.dotted))

    /// `section.key` for every key docs/percbridge.example.toml shows, commented-out examples included.
    static func exampleKeys() throws -> Set<String> {
        let text = try String(contentsOf: docs.appendingPathComponent("percbridge.example.toml"), encoding: .utf8)
        var section = ""
        var keys = Set<String>()
        for raw in text.split(separator: "\n") {
            var line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") { line = line.dropFirst().trimmingCharacters(in: .whitespaces) }
            if let header = line.firstMatch(of: /^\[\[?([a-z_]+)\]/) {
                section = String(header.1)
            } else if let key = line.firstMatch(of: /^([a-z_]+)\s*=/) {
                keys.insert("\(section).\(key.1)")
            }
        }
        return keys
    }

    /// The rows of docs/configuration.md's key table: each row's keys (`[[input]] listen` as
    /// `input.listen`), the input kinds it names in parentheses, and the row itself.
    static func docRows() throws -> [(keys: [String], kinds: [String]?, row: String)] {
        let text = try String(contentsOf: docs.appendingPathComponent("configuration.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## The tangible registry").first)
        return section.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { line in
            let first = line.split(separator: "|")[0]
            let keys = first.matches(of: /`([^`]+)`/).map {
                $0.1.hasPrefix("[[input]] ") ? "input." + $0.1.dropFirst("[[input]] ".count) : String($0.1)
            }
            let kinds = first.firstMatch(of: /\(([^)]+)\)/).map { $0.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            return (keys, kinds, String(line))
        }
    }

    @Test func theExampleShowsTheTableAndNothingElse() throws {
        let example = try Self.exampleKeys()
        #expect(example.count > 50, "the example was read: \(example.sorted())")
        #expect(example.subtracting(Self.table).isEmpty, "keys in docs/percbridge.example.toml but not in ConfigSchema: \(example.subtracting(Self.table).sorted())")
        // docs/configuration.md says the example lists every key.
        #expect(Self.table.subtracting(example).isEmpty, "keys in ConfigSchema but not in docs/percbridge.example.toml: \(Self.table.subtracting(example).sorted())")
    }

    @Test func theDocsListTheTableAndNothingElse() throws {
        let documented = Set(try Self.docRows().flatMap(\.keys))
        #expect(documented.subtracting(Self.table).isEmpty, "in docs/configuration.md but not in ConfigSchema: \(documented.subtracting(Self.table).sorted())")
        #expect(Self.table.subtracting(documented).isEmpty, "in ConfigSchema but not in docs/configuration.md: \(Self.table.subtracting(documented).sorted())")
    }

    /// The docs' bounds, choices and input kinds are the table's.
    @Test func theDocsSayWhatTheTableAllows() throws {
        for (keys, kinds, row) in try Self.docRows() {
            for dotted in keys {
                let key = try #require(ConfigSchema.key(dotted), "\(dotted)")
                if let kinds { #expect(kinds == key.inputKinds.map(\.rawValue), "\(dotted): the docs name kinds \(kinds)") }
                switch key.value {
                case let .choice(names):
                    for name in names { #expect(row.contains("`\(name)`"), "\(dotted): the docs do not list \(name)") }
                case .number, .wholeNumber:
                    let b = try #require(key.value.bounds)
                    let range = "\(Self.figure(b.lowerBound))–\(Self.figure(b.upperBound))"
                    // The one exception names its four values instead of the range.
                    #expect(row.contains(range) || (dotted == "overlay.rotation" && row.contains("0, 90, 180, 270")), "\(dotted): the docs do not say \(range)")
                default: break
                }
            }
        }
    }

    /// What `diagnose --suggest` writes (and `--apply` edits) are number keys of the table.
    @Test func theSuggestedKeysAreNumberKeysOfTheTable() {
        for key in [SuggestionRules.windowKey, SuggestionRules.failuresKey] {
            #expect(ConfigSchema.key(key)?.value.bounds != nil, "\(key)")
        }
    }

    @Test func everyKeyIsListedOnce() {
        #expect(Self.table.count == ConfigSchema.keys.count)
    }

    static func figure(_ x: Double) -> String { x == x.rounded() ? "\(Int(x))" : "\(x)" }
}
