// One problem in a config file, located by file, line and key, saying what is allowed.

/// A located config problem: `FILE:LINE: KEY: problem; allowed: ...`.
public struct ConfigIssue: Hashable, Sendable, CustomStringConvertible {
    var file: String
    var line: Int?
    var key: String
    var problem: String
    var allowed: String?

    public var description: String {
        var s = file
        if let line { s += ":\(line)" }
        s += ": \(key.isEmpty ? "(document)" : key): \(problem)"
        if let allowed { s += "; allowed: \(allowed)" }
        return s
    }
}

/// Thrown when a config file cannot be used; lists every problem found, not only the first.
public struct ConfigError: Error, CustomStringConvertible {
    public var issues: [ConfigIssue]
    public var description: String {
        issues.map(\.description).joined(separator: "\n")
    }
}
