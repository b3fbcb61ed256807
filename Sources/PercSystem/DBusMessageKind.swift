// The four D-Bus message types as libdbus numbers them.

/// D-Bus message types (`DBUS_MESSAGE_TYPE_*`).
enum DBusMessageKind {
    static let methodCall: Int32 = 1
    static let methodReturn: Int32 = 2
    static let error: Int32 = 3
    static let signal: Int32 = 4
}
