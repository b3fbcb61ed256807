// Turns a TOML config text into a ServiceConfig, collecting every located problem.
import Foundation
import TOMLKit

/// Parses and validates the config file by walking ConfigSchema's key table; see
/// docs/configuration.md for every key.
public enum ConfigLoader {
    /// Reads `path`; throws `ConfigError` listing each problem with its line and key.
    public static func load(path: String) throws -> ServiceConfig {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(issues: [ConfigIssue(file: path, line: nil, key: "",
                problem: "cannot read the file (\(error.localizedDescription))",
                allowed: "a readable UTF-8 TOML file")])
        }
        return try parse(text: text, file: path)
    }

    public static func parse(text: String, file: String) throws -> ServiceConfig {
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw ConfigError(issues: [ConfigIssue(file: file, line: e.source.begin.line, key: "",
                problem: "not valid TOML: \(e.description) (column \(e.source.begin.column))",
                allowed: "TOML 1.0 syntax, see docs/percbridge.example.toml")])
        }
        let lines = ConfigKeyLines(text: text)
        var issues: [ConfigIssue] = []
        var config = ServiceConfig()
        func reader(_ t: TOMLTable, _ path: String) -> ConfigTableReader {
            ConfigTableReader(table: t, path: path, file: file, lines: lines)
        }
        let top = reader(root, "")
        for section in ConfigSchema.sections {
            if section.isInputList {
                for (i, t) in (top.tables(section.name) ?? []).enumerated() {
                    let r = reader(t, "\(section.name)[\(i)]")
                    config.inputs.append(input(r))
                    issues += r.finish()
                }
            } else if let t = top.table(section.name) {
                let r = reader(t, section.name)
                for entry in section.entries { entry.read(r, &config) }
                section.check?(r, config)
                issues += r.finish()
            }
        }
        issues = top.finish() + issues
        if !issues.isEmpty { throw ConfigError(issues: issues.sorted { ($0.line ?? 0) < ($1.line ?? 0) }) }
        return config
    }

    /// One `[[input]]`: its kind first, which decides the keys it may have.
    private static func input(_ r: ConfigTableReader) -> ServiceConfig.Input {
        let kindNames = ConfigSchema.inputKind.value.allowed
        let kind: ServiceConfig.Input.Kind? = r.optionalString("kind", allowed: kindNames).flatMap {
            if let k = ServiceConfig.Input.Kind(rawValue: $0) { return k }
            r.fail("kind", "\"\($0)\" is not an input kind", allowed: kindNames)
            return nil
        }
        var input = ServiceConfig.Input(kind: kind ?? .evdev)
        if kind == nil, !r.issues.contains(where: { $0.key.hasSuffix(".kind") }) {
            r.fail("kind", "missing: every [[input]] needs a kind", allowed: kindNames)
        }
        for (kinds, entry) in ConfigSchema.inputEntries where kinds.contains(input.kind) { entry.read(r, &input) }
        return input
    }
}
