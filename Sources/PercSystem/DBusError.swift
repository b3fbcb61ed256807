// The one error type of the D-Bus layer: a D-Bus error name plus a message.

/// Every failure of the D-Bus layer: error replies of peers (with their name, message and
/// body) as well as local failures, which use the standard names (`NoReply` for timeouts,
/// `Disconnected`, `BadAddress`, `InvalidArgs` for values we refused to send,
/// `InvalidSignature` for replies of an unexpected type).
///
/// Inside `Sources/PercSystem` this type shadows libdbus' C struct of the same name;
/// the C struct is spelled `CDBus.DBusError` there.
public struct DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The D-Bus error name, e.g. `org.bluez.Error.InProgress`.
    public var name: String
    /// The human-readable message (first string argument of the error reply).
    public var message: String
    /// All arguments of the error reply (empty for local errors).
    public var body: [DBusValue]

    public init(name: String, message: String, body: [DBusValue] = []) {
        self.name = name
        self.message = message
        self.body = body
    }

    public init(_ name: Name, _ message: String) {
        self.init(name: name.rawValue, message: message)
    }

    public var description: String { "\(name): \(message)" }

    /// True for a method call that got no reply in time (`org.freedesktop.DBus.Error.NoReply`).
    public var isTimeout: Bool { name == Name.noReply.rawValue || name == Name.timeout.rawValue }

    /// True when the connection is gone (`org.freedesktop.DBus.Error.Disconnected`).
    var isDisconnected: Bool { name == Name.disconnected.rawValue }

    /// Standard error names of `org.freedesktop.DBus.Error.*` used by this layer.
    public struct Name: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        private init(_ suffix: String) { rawValue = "org.freedesktop.DBus.Error." + suffix }

        public static let failed = Name("Failed")
        static let noReply = Name("NoReply")
        public static let timeout = Name("Timeout")
        public static let disconnected = Name("Disconnected")
        public static let badAddress = Name("BadAddress")
        static let noServer = Name("NoServer")
        public static let invalidArgs = Name("InvalidArgs")
        static let invalidSignature = Name("InvalidSignature")
        static let unknownMethod = Name("UnknownMethod")
        static let unknownObject = Name("UnknownObject")
        static let unknownInterface = Name("UnknownInterface")
        static let unknownProperty = Name("UnknownProperty")
        static let propertyReadOnly = Name("PropertyReadOnly")
        public static let nameHasNoOwner = Name("NameHasNoOwner")
        public static let serviceUnknown = Name("ServiceUnknown")
        public static let accessDenied = Name("AccessDenied")
        public static let notSupported = Name("NotSupported")
        static let noMemory = Name("NoMemory")
    }
}
