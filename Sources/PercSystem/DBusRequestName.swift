// Flags and results of RequestName/ReleaseName (owning a well-known bus name).

/// Flags of `RequestName`.
public struct DBusRequestNameFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Let a later requester with `replaceExisting` take the name from us.
    static let allowReplacement = DBusRequestNameFlags(rawValue: 1)
    /// Take the name from its owner if that owner allowed replacement.
    static let replaceExisting = DBusRequestNameFlags(rawValue: 2)
    /// Fail instead of waiting in the queue.
    public static let doNotQueue = DBusRequestNameFlags(rawValue: 4)
}

/// Result of `RequestName`.
public enum DBusRequestNameReply: UInt32, Sendable {
    case primaryOwner = 1, inQueue = 2, exists = 3, alreadyOwner = 4
}

/// Result of `ReleaseName`.
enum DBusReleaseNameReply: UInt32, Sendable {
    case released = 1, nonExistent = 2, notOwner = 3
}
