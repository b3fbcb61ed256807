// One `[section]` of the config file in the key table: its keys in reading order and its cross-key checks.

/// A section of the config file. `[[input]]` is the one list of tables: its keys depend on its
/// kind (ConfigSchema.inputEntries), so ConfigLoader reads it with code of its own.
struct ConfigSection: Sendable {
    let name: String
    let entries: [ConfigEntry<ServiceConfig>]
    /// Problems that need several keys, looked for once every key is read.
    let check: (@Sendable (ConfigTableReader, ServiceConfig) -> Void)?
    let isInputList: Bool

    init(_ name: String, _ entries: [ConfigEntry<ServiceConfig>], check: (@Sendable (ConfigTableReader, ServiceConfig) -> Void)? = nil) {
        self.name = name; self.entries = entries; self.check = check; isInputList = false
    }

    private init(inputList name: String) {
        self.name = name; entries = []; check = nil; isInputList = true
    }

    /// `[[input]]`, where it is read among the sections.
    static let inputs = ConfigSection(inputList: "input")
}
