// One recommended config setting with the evidence behind it (`percbridge diagnose --suggest`).

/// One suggested config setting with the evidence behind it (`diagnose --suggest`).
public struct SettingSuggestion: Codable, Hashable, Sendable {
    /// The TOML key (docs/configuration.md), e.g. `recognition.time_window_ms`.
    public var key: String
    public var value: Int
    /// The value in effect when the data was taken.
    public var current: Int
    /// Why, in figures.
    public var evidence: String
}
