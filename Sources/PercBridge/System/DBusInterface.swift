// The description of an interface we export: methods with handlers, properties, signals.

/// One exported interface. Its methods, properties and signals are what Introspect shows.
///
/// ```swift
/// let control = DBusInterface(name: "org.percbridge.Control1",
///     methods: [DBusMethod("Status", out: "s") { _ in [.string("running")] }],
///     properties: [DBusProperty("Version", "s", .string("0.1.0"))],
///     signals: [DBusSignalDescription("TangibleChanged", "us", argumentNames: ["id", "state"])])
/// ```
public struct DBusInterface: Sendable {
    public var name: String
    public var methods: [DBusMethod]
    public var properties: [DBusProperty]
    public var signals: [DBusSignalDescription]

    public init(name: String, methods: [DBusMethod] = [], properties: [DBusProperty] = [],
                signals: [DBusSignalDescription] = []) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    /// Checks every name and that property values fit their signatures.
    func validate() throws {
        try DBusNames.checkInterface(name)
        for method in methods { try DBusNames.checkMember(method.name) }
        for signal in signals { try DBusNames.checkMember(signal.name) }
        for property in properties {
            try DBusNames.checkMember(property.name)
            guard property.signature.isSingleCompleteType else {
                throw DBusError(.invalidArgs, "property \(name).\(property.name) needs one complete type, not '\(property.signature)'")
            }
            if let value = property.initialValue, value.signature != property.signature {
                throw DBusError(.invalidArgs, "property \(name).\(property.name) is '\(property.signature)' but its value is '\(value.signature)'")
            }
        }
    }
}

/// A method of an exported interface. The handler runs in a Task; what it throws as a
/// `DBusError` goes back to the caller with that name, anything else as `…Error.Failed`.
public struct DBusMethod: Sendable {
    public var name: String
    public var inSignature: DBusSignature
    public var outSignature: DBusSignature
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

/// A property of an exported interface; its value is kept by the exported object.
public struct DBusProperty: Sendable {
    public enum Access: String, Sendable { case read, readwrite }

    public var name: String
    public var signature: DBusSignature
    public var access: Access
    /// Nil: the property has no value yet (Get fails, GetAll leaves it out).
    public var initialValue: DBusValue?
    /// Called on remote `Set` before the value is stored: throw a `DBusError` to refuse.
    public var willSet: (@Sendable (DBusValue) throws -> Void)?

    public init(_ name: String, _ signature: DBusSignature, _ initialValue: DBusValue? = nil, access: Access = .read,
                willSet: (@Sendable (DBusValue) throws -> Void)? = nil) {
        self.name = name
        self.signature = signature
        self.access = access
        self.initialValue = initialValue
        self.willSet = willSet
    }
}

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
