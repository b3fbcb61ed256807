// Checks of D-Bus names (bus, interface, member, error) through libdbus, as Swift errors.
import CDBus

/// Validates names before they reach libdbus, which would abort the process on a bad one.
enum DBusNames {
    static func checkBusName(_ name: String) throws { try check(name, "bus name", dbus_validate_bus_name) }
    static func checkInterface(_ name: String) throws { try check(name, "interface name", dbus_validate_interface) }
    static func checkMember(_ name: String) throws { try check(name, "member name", dbus_validate_member) }
    static func checkErrorName(_ name: String) throws { try check(name, "error name", dbus_validate_error_name) }

    private static func check(
        _ name: String, _ what: String,
        _ validate: (UnsafePointer<CChar>?, UnsafeMutablePointer<CDBus.DBusError>?) -> dbus_bool_t
    ) throws {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let ok = !name.utf8.contains(0) && name.withCString { validate($0, &error) } != 0
        if !ok {
            let reason = error.message.map { String(cString: $0) } ?? "contains a NUL byte"
            throw DBusError(.invalidArgs, "'\(name)' is not a valid D-Bus \(what): \(reason)")
        }
    }

    /// Turns a filled libdbus error into the Swift error (nil when it is not set).
    static func swiftError(_ error: inout CDBus.DBusError) -> DBusError? {
        guard dbus_error_is_set(&error) != 0 else { return nil }
        let name = error.name.map { String(cString: $0) } ?? DBusError.Name.failed.rawValue
        let message = error.message.map { String(cString: $0) } ?? ""
        return DBusError(name: name, message: message)
    }
}
