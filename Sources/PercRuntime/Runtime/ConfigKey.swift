// One key of the config file as `config check`, the TOML editor and docs/configuration.md name it.

/// A key of the config file: its section, name and the values it takes (ConfigSchema.keys
/// lists them all).
public struct ConfigKey: Hashable, Sendable {
    /// `clock` for the `[clock]` section, `input` for the `[[input]]` sections.
    public let section: String
    public let name: String
    public let value: ConfigValueKind
    /// An `[[input]]` key: the input kinds that read it. Empty for a section's key.
    public let inputKinds: [ServiceConfig.Input.Kind]

    /// `clock.rate_hz`, as the docs, `config check` and `diagnose --suggest` spell it.
    public var dotted: String { "\(section).\(name)" }
}
