// A signal that an exported interface declares (name, signature, argument names).

/// A signal an exported interface may emit.
public struct DBusSignalDescription: Sendable {
    public var name: String
    public var signature: DBusSignature
    public var argumentNames: [String]

    public init(_ name: String, _ signature: DBusSignature = "", argumentNames: [String] = []) {
        self.name = name
        self.signature = signature
        self.argumentNames = argumentNames
    }
}
