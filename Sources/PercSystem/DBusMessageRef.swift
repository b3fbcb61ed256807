// An owned libdbus message (unref'd in deinit) with checked builders and header accessors.
import CDBus

/// Owns one `DBusMessage*`. Builders validate every name first, because libdbus aborts the
/// process on invalid names. Never leaves `Sources/PercSystem`.
final class DBusMessageRef: @unchecked Sendable {
    // @unchecked: a message is only mutated while it is built, by one thread, before it is sent.
    let pointer: OpaquePointer

    /// Adopts a message reference (the caller's reference is taken over).
    init(adopting pointer: OpaquePointer) { self.pointer = pointer }

    /// Adds a reference to a message borrowed from libdbus (e.g. inside a filter).
    init(retaining pointer: OpaquePointer) {
        self.pointer = dbus_message_ref(pointer)
    }

    deinit { dbus_message_unref(pointer) }

    static func methodCall(destination: String?, path: DBusObjectPath, interface: String?, member: String,
                           arguments: [DBusValue]) throws -> DBusMessageRef {
        if let destination { try DBusNames.checkBusName(destination) }
        if let interface { try DBusNames.checkInterface(interface) }
        try DBusNames.checkMember(member)
        let raw = withOptionalCString(destination) { d in
            withOptionalCString(interface) { i in dbus_message_new_method_call(d, path.rawValue, i, member) }
        }
        guard let raw else { throw DBusError(.noMemory, "out of memory creating a method call") }
        let message = DBusMessageRef(adopting: raw)
        try DBusMarshaller.append(arguments, to: raw)
        return message
    }

    static func signal(path: DBusObjectPath, interface: String, member: String, destination: String? = nil,
                       arguments: [DBusValue]) throws -> DBusMessageRef {
        try DBusNames.checkInterface(interface)
        try DBusNames.checkMember(member)
        if let destination { try DBusNames.checkBusName(destination) }
        guard let raw = dbus_message_new_signal(path.rawValue, interface, member) else {
            throw DBusError(.noMemory, "out of memory creating a signal")
        }
        let message = DBusMessageRef(adopting: raw)
        if let destination { dbus_message_set_destination(raw, destination) }
        try DBusMarshaller.append(arguments, to: raw)
        return message
    }

    /// The method return for this call.
    func methodReturn(arguments: [DBusValue]) throws -> DBusMessageRef {
        guard let raw = dbus_message_new_method_return(pointer) else {
            throw DBusError(.noMemory, "out of memory creating a method return")
        }
        let reply = DBusMessageRef(adopting: raw)
        try DBusMarshaller.append(arguments, to: raw)
        return reply
    }

    /// The error reply for this call. A bad error name is replaced by `org.freedesktop.DBus.Error.Failed`.
    func errorReply(_ error: DBusError) -> DBusMessageRef? {
        let name = (try? DBusNames.checkErrorName(error.name)) != nil ? error.name : DBusError.Name.failed.rawValue
        let text = error.message.replacingOccurrences(of: "\0", with: " ")
        guard let raw = dbus_message_new_error(pointer, name, text) else { return nil }
        return DBusMessageRef(adopting: raw)
    }

    /// Tells the peer not to reply (no-reply calls, RemoveMatch).
    func setNoReply() { dbus_message_set_no_reply(pointer, 1) }

    var type: Int32 { dbus_message_get_type(pointer) }
    var serial: UInt32 { dbus_message_get_serial(pointer) }
    var replySerial: UInt32 { dbus_message_get_reply_serial(pointer) }
    var noReply: Bool { dbus_message_get_no_reply(pointer) != 0 }
    var path: DBusObjectPath? { dbus_message_get_path(pointer).map { DBusObjectPath(unchecked: String(cString: $0)) } }
    var interface: String? { dbus_message_get_interface(pointer).map { String(cString: $0) } }
    var member: String? { dbus_message_get_member(pointer).map { String(cString: $0) } }
    var sender: String? { dbus_message_get_sender(pointer).map { String(cString: $0) } }
    var destination: String? { dbus_message_get_destination(pointer).map { String(cString: $0) } }
    var errorName: String? { dbus_message_get_error_name(pointer).map { String(cString: $0) } }
    var signature: DBusSignature { DBusSignature(unchecked: dbus_message_get_signature(pointer).map { String(cString: $0) } ?? "") }

    func arguments() throws -> [DBusValue] { try DBusUnmarshaller.arguments(of: pointer) }

    /// An error reply as the Swift error (name, first string argument as message, whole body).
    func asError() -> DBusError {
        let body = (try? arguments()) ?? []
        let message: String = if case .string(let s)? = body.first { s } else { "" }
        return DBusError(name: errorName ?? DBusError.Name.failed.rawValue, message: message, body: body)
    }
}

/// Runs `body` with a C string for `s`, or nil.
func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let s else { return body(nil) }
    return s.withCString { body($0) }
}
