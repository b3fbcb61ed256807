// The names of the service's D-Bus control API (docs/control-api.md): bus name, object, interface.
import PercSystem

/// Where the control API lives and what it is called; the CLI and the service share these.
public enum ControlAPI {
    public static let busName = "org.percbridge.PercBridge1"
    public static let path: DBusObjectPath = "/org/percbridge/PercBridge1"
    public static let interface = "org.percbridge.PercBridge1"
    /// Prefix of every error name the API returns (`org.percbridge.Error.UnknownTangible`, …).
    static let errorPrefix = "org.percbridge.Error."
    static let version = "0.1.0"

    /// Methods that only read (the D-Bus policy lets anybody call these).
    static let readMethods = ["List", "Status"]
    /// Methods that change something (root and group `percbridge` only).
    static let writeMethods = ["Pair", "Forget", "Define", "Calibrate"]
}
