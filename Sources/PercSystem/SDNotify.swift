// sd_notify for systemd's Type=notify: readiness, status text, watchdog keep-alives.
import CDBus

/// The service's messages to systemd. Outside systemd (no NOTIFY_SOCKET) every call is a no-op.
public enum SDNotify {
    /// Whether the service runs under systemd with a notify socket.
    static var isAvailable: Bool { getenv("NOTIFY_SOCKET") != nil }

    /// Sends `state` (newline-separated `KEY=VALUE` lines); returns false if it was not delivered.
    @discardableResult
    static func send(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    public static func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    public static func status(_ text: String) { send("STATUS=\(text)") }
    public static func reloading() { send("RELOADING=1") }
    public static func stopping() { send("STOPPING=1") }
    public static func watchdog() { send("WATCHDOG=1") }

    /// The watchdog interval systemd expects keep-alives within (WatchdogSec=), or nil.
    public static var watchdogInterval: Duration? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return .microseconds(Int64(usec))
    }
}

#if canImport(Glibc)
import Glibc
#endif
