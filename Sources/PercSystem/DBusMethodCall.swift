// An incoming method call to an exported object, as handlers see it.

/// A call to one of our exported objects.
public struct DBusMethodCall: Sendable {
    /// Unique name of the caller (check it for access control).
    public var sender: String
    public var path: DBusObjectPath
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]
}
