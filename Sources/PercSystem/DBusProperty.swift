// A property of an exported interface: type, access, initial value, and a check on Set.

/// A property of an exported interface; its value is kept by the exported object.
public struct DBusProperty: Sendable {
    public enum Access: String, Sendable { case read, readwrite }

    public var name: String
    public var signature: DBusSignature
    public var access: Access
    /// Nil: the property has no value yet (Get fails, GetAll leaves it out).
    var initialValue: DBusValue?
    /// Called on remote `Set` before the value is stored: throw a `DBusError` to refuse.
    var willSet: (@Sendable (DBusValue) throws -> Void)?

    public init(_ name: String, _ signature: DBusSignature, _ initialValue: DBusValue? = nil, access: Access = .read,
                willSet: (@Sendable (DBusValue) throws -> Void)? = nil) {
        self.name = name
        self.signature = signature
        self.access = access
        self.initialValue = initialValue
        self.willSet = willSet
    }
}
