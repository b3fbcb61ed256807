// Bounds on strings that come from outside: what may be stored, and how much is echoed back.

/// Bounds on strings from outside: what may be stored, and how much of it is echoed in logs.
public enum InputText {
    /// Error messages and log lines echo at most this many characters of what was sent.
    public static let echoLimit = 80
    /// Names (control API, app hello) are at most this many characters.
    public static let maxNameCharacters = 64

    /// `s` cut to `limit` characters, with how much was left off, control characters shown as `?`
    /// (so a hostile value cannot forge log lines or fill a terminal).
    public static func clip(_ s: String, limit: Int = echoLimit) -> String {
        let shown = String(s.prefix(limit).map { $0.isPrintable ? $0 : "?" })
        let count = s.count
        return count > limit ? "\(shown)… (\(count) characters)" : shown
    }

    /// nil when `name` is a usable name; otherwise why not.
    public static func nameProblem(_ name: String) -> String? {
        if name.count > maxNameCharacters { return "is \(name.count) characters long; at most \(maxNameCharacters) are allowed" }
        if !name.allSatisfy(\.isPrintable) { return "contains control characters; only printable characters are allowed" }
        return nil
    }
}

extension Character {
    /// Not a control, format or separator-other character (tab and newline are not printable here).
    var isPrintable: Bool {
        unicodeScalars.allSatisfy { s in
            switch s.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator: false
            default: true
            }
        }
    }
}
