// A connection to a D-Bus bus: method calls, no-reply sends and signal emission.
import CDBus
import Logging

/// One private connection to a bus, with its own event loop thread (see `DBusEventLoop`
/// for the threading design). Thread-safe; share it freely. Closing happens on `close()`
/// or when the last reference goes away; waiting calls then fail with `Disconnected` and
/// signal streams finish.
///
/// ```swift
/// let bus = try DBusConnection(bus: .system)
/// let reply = try await bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
///                                interface: "org.freedesktop.DBus", member: "ListNames")
/// let names = try reply.value(as: "as").stringArray ?? []
/// ```
public final class DBusConnection: Sendable {
    let loop: DBusEventLoop
    public let bus: DBusBus
    /// Our unique name on the bus, e.g. `:1.42`.
    public var uniqueName: String { loop.uniqueName }

    /// Connects (blocking until the bus said Hello) and starts the event loop thread.
    /// Throws `DBusError` with a message that names the bus and what to try.
    public init(bus: DBusBus, logger: Logger = Logger(label: "percbridge.dbus")) throws {
        self.bus = bus
        let connection = try DBusConnector.connect(bus)
        do {
            loop = try DBusEventLoop(connection: connection, logger: logger)
        } catch {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw error
        }
        loop.start(name: "dbus \(loop.uniqueName)")
        logger.debug("connected to the \(bus) as \(loop.uniqueName)")
    }

    deinit { loop.stop() }

    /// Closes the connection. Waiting calls fail with `Disconnected`; streams finish.
    public func close() { loop.stop() }

    /// False after `close()` or when the bus went away.
    public var isConnected: Bool { loop.isOpen }

    /// Returns when the connection has closed, by `close()` or because the bus went away
    /// (e.g. the system bus restarted): the moment to reconnect and subscribe again.
    func waitUntilClosed() async { await loop.waitUntilClosed() }

    /// Calls a method and waits for its reply (or the peer's error, or `NoReply` after `timeout`).
    /// Task cancellation fails the call with `CancellationError` at once.
    public func call(destination: String?, path: DBusObjectPath, interface: String?, member: String,
                     arguments: [DBusValue] = [], timeout: Duration = .seconds(25)) async throws -> DBusReply {
        try await callApplyingInOrder(destination: destination, path: path, interface: interface, member: member,
                                      arguments: arguments, timeout: timeout) { $0 }
    }

    /// Calls a method and hands its reply to `apply` on the connection's event loop thread, in
    /// order with the signals read before and after it (a signal the peer sent before the reply
    /// has been handled; one sent after it has not). For state read back into something the
    /// signals also update, such as a property re-read. Returns what `apply` returned. Task
    /// cancellation fails the call with `CancellationError` at once.
    public func callApplyingInOrder<T: Sendable>(destination: String?, path: DBusObjectPath, interface: String?,
                                                 member: String, arguments: [DBusValue] = [],
                                                 timeout: Duration = .seconds(25),
                                                 apply: @escaping @Sendable (DBusReply) -> T) async throws -> T {
        let message = try DBusMessageRef.methodCall(destination: destination, path: path, interface: interface,
                                                    member: member, arguments: arguments)
        let serial = DBusCallSerial()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let sent = loop.send(message, timeout: timeout,
                                     what: "\(interface.map { $0 + "." } ?? "")\(member) on \(path) of \(destination ?? "the peer")") {
                    continuation.resume(with: $0.map(apply))
                }
                if let sent, serial.set(sent) { loop.cancel(serial: sent, with: CancellationError()) }
            }
        } onCancel: {
            if let sent = serial.cancel() { loop.cancel(serial: sent, with: CancellationError()) }
        }
    }

    /// Calls a method without waiting: the peer is told not to reply.
    func callNoReply(destination: String?, path: DBusObjectPath, interface: String?, member: String,
                            arguments: [DBusValue] = []) throws {
        let message = try DBusMessageRef.methodCall(destination: destination, path: path, interface: interface,
                                                    member: member, arguments: arguments)
        message.setNoReply()
        try loop.send(message)
    }

    /// Emits a signal from `path` (to everyone whose match rules select it, or to `destination`).
    public func emitSignal(path: DBusObjectPath, interface: String, member: String,
                           arguments: [DBusValue] = [], destination: String? = nil) throws {
        try loop.send(DBusMessageRef.signal(path: path, interface: interface, member: member,
                                            destination: destination, arguments: arguments))
    }

    /// Calls a method of the bus daemon itself (`org.freedesktop.DBus`).
    func callBus(_ member: String, _ arguments: [DBusValue], timeout: Duration = .seconds(25)) async throws -> DBusReply {
        try await call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                       interface: "org.freedesktop.DBus", member: member, arguments: arguments, timeout: timeout)
    }
}
