// The text form of suggested settings (`--suggest`).

/// Suggested settings as text (`diagnose --suggest`).
public enum SuggestionText {
    public static func render(_ suggestions: [SettingSuggestion]) -> String {
        guard !suggestions.isEmpty else {
            return "Suggested settings: none yet. Record more placements (for the time window) and light checks of resting PERCs (for the stationary limit).\n"
        }
        var out = "Suggested settings:\n"
        for s in suggestions {
            out += "  \(s.key) = \(s.value)   (now \(s.current)\(s.value == s.current ? ", unchanged" : ""))\n      because \(s.evidence)\n"
        }
        return out
    }
}
