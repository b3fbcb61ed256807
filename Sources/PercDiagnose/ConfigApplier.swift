// `--apply CONFIG`: writes suggested settings into a TOML config atomically, refusing a config that does not parse.
import Foundation
import PercRuntime

/// `diagnose --apply`: writes suggested settings into a TOML config atomically.
public enum ConfigApplier {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Returns one line per changed key (`key: old → new`); writes only when something changes.
    public static func apply(_ suggestions: [SettingSuggestion], to path: String) throws -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw Failure(description: "cannot read \(path): check the path and its permissions")
        }
        do { _ = try ConfigLoader.parse(text: text, file: path) } catch let e as ConfigError {
            throw Failure(description: "\(e.description)\n\(path) does not parse, so nothing was changed; fix it first (percbridge config check \(path))")
        }
        var editor = TOMLSettingEditor(text: text)
        var changes: [String] = []
        for s in suggestions where s.value != s.current {
            do { try editor.set(s.key, to: .integer(s.value), comment: "suggested by percbridge diagnose") } catch let refusal as TOMLSettingEditor.Refusal {
                throw Failure(description: "\(refusal); nothing was changed in \(path)")
            }
            changes.append("\(s.key): \(s.current) → \(s.value)")
        }
        guard !changes.isEmpty else { return [] }
        // Never write a file the service would refuse.
        do { _ = try ConfigLoader.parse(text: editor.text, file: path) } catch {
            throw Failure(description: "the edited \(path) would not parse (\(error)); nothing was changed, please report this")
        }
        try AtomicFile.write(Data(editor.text.utf8), to: path)
        return changes
    }
}
