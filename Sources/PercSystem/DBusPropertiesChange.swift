// One PropertiesChanged signal, parsed: which object, which interface, what changed.

/// `org.freedesktop.DBus.Properties.PropertiesChanged(s interface, a{sv} changed, as invalidated)`.
public struct DBusPropertiesChange: Sendable, Hashable {
    public var sender: String
    public var path: DBusObjectPath
    public var interface: String
    /// New values, variants unwrapped.
    public var changed: [String: DBusValue]
    /// Properties that changed without their new value being sent.
    public var invalidated: [String]
    /// CLOCK_MONOTONIC nanoseconds when the signal came off the socket.
    var receivedAtNanoseconds: UInt64

    public init(sender: String, path: DBusObjectPath, interface: String, changed: [String: DBusValue],
                invalidated: [String], receivedAtNanoseconds: UInt64) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.changed = changed
        self.invalidated = invalidated
        self.receivedAtNanoseconds = receivedAtNanoseconds
    }

    /// Parses the signal; nil when its arguments are not `sa{sv}as`.
    init?(_ signal: DBusSignal) {
        let a = signal.arguments
        guard a.count == 3, case .string(let interface) = a[0], let changed = a[1].stringVariantDictionary,
              let invalidated = a[2].stringArray else { return nil }
        self.init(sender: signal.sender, path: signal.path, interface: interface, changed: changed,
                  invalidated: invalidated, receivedAtNanoseconds: signal.receivedAtNanoseconds)
    }
}
