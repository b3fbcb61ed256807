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
