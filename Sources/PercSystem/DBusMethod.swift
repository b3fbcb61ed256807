// A method of an exported interface: its signatures, argument names and async handler.

/// A method of an exported interface. The handler runs in a Task; what it throws as a
/// `DBusError` goes back to the caller with that name, anything else as `…Error.Failed`.
public struct DBusMethod: Sendable {
    public var name: String
    var inSignature: DBusSignature
    var outSignature: DBusSignature
    public var inNames: [String]
    public var outNames: [String]
    public var handler: @Sendable (DBusMethodCall) async throws -> [DBusValue]

    public init(_ name: String, in inSignature: DBusSignature = "", out outSignature: DBusSignature = "",
                inNames: [String] = [], outNames: [String] = [],
                handler: @escaping @Sendable (DBusMethodCall) async throws -> [DBusValue]) {
        self.name = name
        self.inSignature = inSignature
        self.outSignature = outSignature
        self.inNames = inNames
        self.outNames = outNames
        self.handler = handler
    }
}
