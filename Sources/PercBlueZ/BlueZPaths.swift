// Small helpers the BlueZ code shares: parents of BlueZ object paths, durations in seconds.
import PercSystem

extension Duration {
    /// This duration in seconds, as a Double (for messages).
    var seconds: Double {
        let (s, attos) = components
        return Double(s) + Double(attos) / 1e18
    }
}

extension DBusObjectPath {
    /// `/org/bluez/hci0` for anything below it.
    public var parentAdapter: DBusObjectPath {
        let parts = rawValue.split(separator: "/")
        return parts.count >= 3 ? DBusObjectPath(stringLiteral: "/" + parts.prefix(3).joined(separator: "/")) : self
    }

    /// `/org/bluez/hci0/dev_…` for anything below a device.
    var parentDevice: DBusObjectPath {
        let parts = rawValue.split(separator: "/")
        return parts.count >= 4 ? DBusObjectPath(stringLiteral: "/" + parts.prefix(4).joined(separator: "/")) : self
    }
}
