// A received D-Bus signal as a Swift value, stamped with its arrival time.

/// One signal delivered to a subscription.
public struct DBusSignal: Sendable, Hashable {
    /// Unique bus name of the sender (e.g. `:1.42`), or `org.freedesktop.DBus` for the bus itself.
    public var sender: String
    public var path: DBusObjectPath
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]
    /// CLOCK_MONOTONIC nanoseconds when the event loop took the message off the socket.
    var receivedAtNanoseconds: UInt64

    public init(sender: String, path: DBusObjectPath, interface: String, member: String,
                arguments: [DBusValue], receivedAtNanoseconds: UInt64) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
        self.receivedAtNanoseconds = receivedAtNanoseconds
    }

    public var signature: DBusSignature { DBusValue.signature(of: arguments) }

    /// The arrival time in seconds on CLOCK_MONOTONIC (the service's timeline).
    public var receivedAt: Double { Double(receivedAtNanoseconds) / 1e9 }
}
