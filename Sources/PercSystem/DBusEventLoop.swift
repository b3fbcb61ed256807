// The per-connection event loop: one thread that reads, dispatches and times out D-Bus traffic.
import CDBus
import Foundation
import Glibc
import Logging
import Synchronization

/// Drives one private libdbus connection.
///
/// Threading design:
/// - **One dedicated thread per connection** runs `run()` (ordinary; SCHED_FIFO with
///   `PERCBRIDGE_DBUS_RT=1`, see `ReceiveThreadPriority` for why not by default): it `poll()`s the connection's socket and an eventfd, lets
///   libdbus read/write without blocking (`dbus_connection_read_write(conn, 0)`), then
///   dispatches every queued message through one filter (`handle(_:)`). libdbus' own
///   watch/timeout machinery is not used. While another thread holds libdbus' I/O path
///   (a sender writing), the loop cannot read and backs off briefly instead of spinning.
/// - **Replies** are matched to waiting calls by reply serial in a table guarded by
///   `state` (a `Mutex`). A call inserts its entry while it sends, under that lock, so a fast
///   reply can never overtake its registration. Continuations are resumed directly on the
///   loop thread.
/// - **Timeouts** are deadlines in that table; the loop sleeps in `poll()` exactly until the
///   nearest one (no sleeps, no polling) and fails expired calls with `NoReply`.
/// - **Signals** are decoded once and handed to every matching subscriber on the loop
///   thread (an `AsyncStream` continuation's `yield`, or a handler closure): no Task hop
///   between the socket and the subscriber.
/// - **Sending** happens on the caller's thread (`dbus_connection_send` is thread-safe after
///   `dbus_threads_init_default`). If libdbus cannot write at once it queues the bytes and
///   calls our wake-up function, which pokes the eventfd so that the loop flushes them.
/// - **Incoming method calls** for exported objects are routed by `DBusExportRegistry`;
///   async handlers run in Tasks and send their replies from there.
/// - Shutdown: `stop()` sets a flag and pokes the eventfd; the loop flushes, closes the
///   connection, fails waiting calls with `Disconnected` and finishes every subscription.
///   The libdbus connection is unreferenced in `deinit`, when no thread can still use it.
final class DBusEventLoop: @unchecked Sendable {
    // @unchecked: `connection` is used under libdbus' own locking (threads initialised);
    // everything mutable of ours lives in `state`.
    let connection: OpaquePointer
    let uniqueName: String
    let logger: Logger
    let exports: DBusExportRegistry
    private let wakeFD: Int32
    private let socketFD: Int32
    private let state = Mutex(State())
    private let loopThread = Atomic<UInt>(0)
    /// CLOCK_MONOTONIC when the loop's poll() last returned: the receive time of the signals
    /// read in that round. Touched only by the loop thread (the filter runs there).
    private var wokeAt: UInt64 = 0
    /// How long the loop sleeps when the socket is readable but libdbus did not read because
    /// another thread holds its I/O path (e.g. a preempted sender).
    static let ioPathBackoffMicroseconds: UInt32 = 50

    struct Pending {
        var deadline: UInt64
        var what: String
        var complete: @Sendable (Result<DBusReply, any Error>) -> Void
    }

    struct State {
        var pending: [UInt32: Pending] = [:]
        var subscribers: [DBusSignalSubscriber] = []
        var nextSubscriberID: UInt64 = 1
        /// Direct receivers of one byte-array property per object path (`DBusPropertyBytesSink`).
        var propertySinks: [String: DBusPropertyBytesSink] = [:]
        /// Owners of well-known names that rules name as sender ("" = no owner).
        var owners: [String: String] = [:]
        var ownerWatchCount: [String: Int] = [:]
        var stopping = false
        var closed = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        /// The deadline the loop's current poll() will wake up for.
        var pollDeadline: UInt64 = .max
    }

    init(connection: OpaquePointer, logger: Logger) throws {
        self.connection = connection
        self.logger = logger
        self.uniqueName = dbus_bus_get_unique_name(connection).map { String(cString: $0) } ?? ""
        var fd: Int32 = -1
        guard dbus_connection_get_unix_fd(connection, &fd) != 0, fd >= 0 else {
            throw DBusError(.notSupported, "the D-Bus connection has no Unix socket to poll")
        }
        socketFD = fd
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wakeFD >= 0 else { throw DBusError(.failed, "cannot create an eventfd for the D-Bus loop: errno \(errno)") }
        exports = DBusExportRegistry()
    }

    deinit {
        dbus_connection_unref(connection)
        Glibc.close(wakeFD)
    }

    /// Installs the filter and starts the loop thread.
    func start(name: String) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        // The filter and the wake-up functions get an unretained pointer: the loop thread
        // holds `self` strongly for as long as libdbus can call them (until close).
        dbus_connection_add_filter(connection, { _, message, data in
            guard let message, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            return Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue().handle(message)
        }, me, nil)
        dbus_connection_set_wakeup_main_function(connection, { data in
            guard let data else { return }
            Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue().wakeFromOtherThread()
        }, me, nil)
        dbus_connection_set_dispatch_status_function(connection, { _, status, data in
            guard let data, status == DBUS_DISPATCH_DATA_REMAINS else { return }
            Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue().wakeFromOtherThread()
        }, me, nil)
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    // MARK: - Sending

    /// Sends a method call and calls `complete` once, on the loop thread (or at once on failure),
    /// with the reply, the peer's error, `NoReply` after `timeout`, or `Disconnected`.
    @discardableResult
    func send(_ message: DBusMessageRef, timeout: Duration, what: @autoclosure () -> String,
              complete: @escaping @Sendable (Result<DBusReply, any Error>) -> Void) -> UInt32? {
        let deadline = MonotonicClock.nanosecondsNow() &+ MonotonicClock.nanoseconds(timeout)
        let description = what()
        var wake = false
        let result: Result<UInt32, DBusError> = state.withLock { s in
            guard !s.closed, !s.stopping else {
                return .failure(DBusError(.disconnected, "cannot call \(description): the D-Bus connection is closed"))
            }
            var serial: UInt32 = 0
            guard dbus_connection_send(connection, message.pointer, &serial) != 0 else {
                return .failure(DBusError(.noMemory, "out of memory sending \(description)"))
            }
            s.pending[serial] = Pending(deadline: deadline, what: description, complete: complete)
            if deadline < s.pollDeadline {
                s.pollDeadline = deadline
                wake = true
            }
            return .success(serial)
        }
        switch result {
        case .success(let serial):
            if wake { wakeFromOtherThread() }
            return serial
        case .failure(let error):
            complete(.failure(error))
            return nil
        }
    }

    /// Sends a message that gets no reply (signals, replies, no-reply calls).
    func send(_ message: DBusMessageRef) throws {
        let ok: Bool = try state.withLock { s in
            guard !s.closed, !s.stopping else {
                throw DBusError(.disconnected, "cannot send: the D-Bus connection is closed")
            }
            return dbus_connection_send(connection, message.pointer, nil) != 0
        }
        guard ok else { throw DBusError(.noMemory, "out of memory sending a D-Bus message") }
    }

    /// Fails a waiting call early (task cancellation).
    func cancel(serial: UInt32, with error: any Error) {
        let pending = state.withLock { $0.pending.removeValue(forKey: serial) }
        pending?.complete(.failure(error))
    }

    /// Returns once the loop has shut down (closed by us or by the bus).
    func waitUntilClosed() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let closed = state.withLock { s in
                if !s.closed { s.closeWaiters.append(waiter) }
                return s.closed
            }
            if closed { waiter.resume() }
        }
    }

    /// Local signal subscribers (for tests and diagnostics).
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    var isOpen: Bool { state.withLock { !$0.closed && !$0.stopping } }

    /// The loop thread's scheduling policy (`SCHED_FIFO`, `SCHED_OTHER`), nil before it runs.
    var loopThreadPolicy: Int32? {
        let thread = loopThread.load(ordering: .relaxed)
        guard thread != 0, state.withLock({ !$0.closed }) else { return nil }
        var policy: Int32 = 0
        var param = sched_param()
        return pthread_getschedparam(pthread_t(thread), &policy, &param) == 0 ? policy : nil
    }

    // MARK: - Subscribers

    /// Registers a local subscriber (the bus-side AddMatch is the caller's job).
    func addSubscriber(rule: DBusMatchRule, deliver: @escaping @Sendable (DBusSignal) -> Void,
                       finish: @escaping @Sendable () -> Void) throws -> DBusSignalSubscriber {
        try state.withLock { s in
            guard !s.closed, !s.stopping else {
                throw DBusError(.disconnected, "cannot subscribe to \(rule): the D-Bus connection is closed")
            }
            let subscriber = DBusSignalSubscriber(id: s.nextSubscriberID, rule: rule, deliver: deliver, finish: finish)
            s.nextSubscriberID += 1
            s.subscribers.append(subscriber)
            return subscriber
        }
    }

    /// Removes a subscriber; true if it was still registered.
    @discardableResult
    func removeSubscriber(id: UInt64) -> Bool {
        state.withLock { s in
            guard let index = s.subscribers.firstIndex(where: { $0.id == id }) else { return false }
            s.subscribers.remove(at: index)
            return true
        }
    }

    /// Sends `sender`'s changes of only `interface`.`property` (an `ay`) on `path` straight to
    /// `deliver` on the loop thread (see `DBusPropertyBytesSink`); replaces an earlier sink of
    /// that path. Sees only signals this connection receives anyway: a subscription with
    /// `sender` as its sender must bring them (its rule is what tells the bus, and it keeps
    /// the sender's owner known). Returns an id for `removePropertySink`.
    func addPropertySink(path: DBusObjectPath, sender: String, interface: String, property: String,
                         deliver: @escaping @Sendable ([UInt8], UInt64) -> Void) -> UInt64 {
        state.withLock { s in
            let id = s.nextSubscriberID
            s.nextSubscriberID += 1
            s.propertySinks[path.rawValue] = DBusPropertyBytesSink(id: id, sender: sender, interface: interface,
                                                                   property: property, deliver: deliver)
            return id
        }
    }

    /// Removes the sink `id` (a newer sink of the same path stays).
    func removePropertySink(id: UInt64) {
        state.withLock { s in
            if let path = s.propertySinks.first(where: { $0.value.id == id })?.key { s.propertySinks[path] = nil }
        }
    }

    /// Counts interest in the owner of a well-known name; true for the first one
    /// (then the caller adds the NameOwnerChanged match and asks GetNameOwner).
    func retainOwnerWatch(_ name: String) -> Bool {
        state.withLock { s in
            s.ownerWatchCount[name, default: 0] += 1
            return s.ownerWatchCount[name] == 1
        }
    }

    /// Drops interest; true for the last one (then the caller removes the match).
    func releaseOwnerWatch(_ name: String) -> Bool {
        state.withLock { s in
            guard let count = s.ownerWatchCount[name] else { return false }
            if count > 1 {
                s.ownerWatchCount[name] = count - 1
                return false
            }
            s.ownerWatchCount[name] = nil
            s.owners[name] = nil
            return true
        }
    }

    func setOwner(_ owner: String, of name: String) {
        state.withLock { s in
            if s.ownerWatchCount[name] != nil { s.owners[name] = owner }
        }
    }

    // MARK: - The loop

    func stop() {
        let first = state.withLock { s in
            defer { s.stopping = true }
            return !s.stopping
        }
        if first { wake() }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }

    /// Pokes the loop unless we are on it (then it is about to look anyway).
    private func wakeFromOtherThread() {
        if pthread_equal(pthread_self(), pthread_t(loopThread.load(ordering: .relaxed))) != 0 { return }
        wake()
    }

    private func run() {
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
        // Real-time only on request (PERCBRIDGE_DBUS_RT=1; ReceiveThreadPriority says why
        // not by default). It shares libdbus' I/O path with senders; see the back-off below.
        // (Records the status either way, for `bench notify`.)
        ReceiveThreadPriority.promoteCurrentThread(as: .dbusLoop)
        var fds = [pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        // Messages that arrived while connecting (e.g. NameAcquired) are already queued.
        wokeAt = MonotonicClock.nanosecondsNow()
        dispatchAll()
        // Bytes left unread after a round in which nothing could be dispatched (nil: none such).
        var unreadAfterIdleRound: Int32?
        while true {
            let (stopping, deadline) = state.withLock { s -> (Bool, UInt64) in
                let next = s.pending.values.lazy.map(\.deadline).min() ?? .max
                s.pollDeadline = next
                return (s.stopping, next)
            }
            if stopping { break }
            let wantWrite = dbus_connection_has_messages_to_send(connection) != 0
            fds[0].events = Int16(POLLIN) | (wantWrite ? Int16(POLLOUT) : 0)
            fds[0].revents = 0
            fds[1].revents = 0
            let rc = poll(&fds, 2, Self.pollTimeout(until: deadline))
            wokeAt = MonotonicClock.nanosecondsNow()
            if rc < 0, errno != EINTR {
                logger.error("D-Bus event loop: poll failed (errno \(errno)); closing the connection")
                break
            }
            if fds[1].revents != 0 {
                var counter: UInt64 = 0
                _ = Glibc.read(wakeFD, &counter, 8)
            }
            if fds[0].revents != 0 || wantWrite {
                dbus_connection_read_write(connection, 0)
            }
            let dispatched = dispatchAll()
            if fds[0].revents & Int16(POLLIN) != 0, dispatched == 0 {
                // Readable, yet nothing came in: either a long message arriving in parts, or
                // another thread holds libdbus' I/O path (read_write(0) then returns without
                // reading and poll() would report the same bytes again at once). The second
                // shows as unread bytes that did not shrink since the last such round: then
                // sleep briefly, so that a real-time loop cannot starve a preempted sender.
                var unread: Int32 = 0
                _ = ioctl(socketFD, UInt(FIONREAD), &unread)
                if let before = unreadAfterIdleRound, unread > 0, unread >= before {
                    usleep(Self.ioPathBackoffMicroseconds)
                }
                unreadAfterIdleRound = unread
            } else {
                unreadAfterIdleRound = nil
            }
            expireTimeouts()
            if dbus_connection_get_is_connected(connection) == 0 {
                logger.info("D-Bus connection \(uniqueName) was closed by the bus")
                break
            }
        }
        teardown()
    }

    /// Dispatches every queued message; returns how many.
    @discardableResult
    private func dispatchAll() -> Int {
        var count = 0
        while dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS {
            count += 1
            if dbus_connection_dispatch(connection) != DBUS_DISPATCH_DATA_REMAINS { break }
        }
        return count
    }

    private static func pollTimeout(until deadline: UInt64) -> Int32 {
        if deadline == .max { return -1 }
        let now = MonotonicClock.nanosecondsNow()
        if deadline <= now { return 0 }
        // Round up so that we never wake just before the deadline and spin.
        let ms = (deadline - now + 999_999) / 1_000_000
        return Int32(min(ms, UInt64(Int32.max)))
    }

    private func expireTimeouts() {
        let now = MonotonicClock.nanosecondsNow()
        let expired: [Pending] = state.withLock { s in
            guard s.pollDeadline <= now else { return [] }
            let serials = s.pending.filter { $0.value.deadline <= now }.map(\.key)
            return serials.compactMap { s.pending.removeValue(forKey: $0) }
        }
        for call in expired {
            call.complete(.failure(DBusError(.noReply, "no reply to \(call.what) in time (the peer did not answer before the timeout)")))
        }
    }

    private func teardown() {
        if dbus_connection_get_is_connected(connection) != 0 {
            dbus_connection_flush(connection)
        }
        dbus_connection_close(connection)
        let (pending, subscribers, waiters) = state.withLock { s in
            s.closed = true
            s.stopping = true
            defer { s.pending = [:]; s.subscribers = []; s.closeWaiters = [] }
            return (Array(s.pending.values), s.subscribers, s.closeWaiters)
        }
        for call in pending {
            call.complete(.failure(DBusError(.disconnected, "\(call.what) failed: the D-Bus connection closed")))
        }
        for subscriber in subscribers { subscriber.finish() }
        exports.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    // MARK: - Dispatch (loop thread)

    private func handle(_ raw: OpaquePointer) -> DBusHandlerResult {
        switch dbus_message_get_type(raw) {
        case DBusMessageKind.methodReturn, DBusMessageKind.error:
            return handleReply(raw)
        case DBusMessageKind.signal:
            handleSignal(raw)
            return DBUS_HANDLER_RESULT_HANDLED
        case DBusMessageKind.methodCall:
            exports.handle(DBusMessageRef(retaining: raw), on: self)
            return DBUS_HANDLER_RESULT_HANDLED
        default:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
    }

    private func handleReply(_ raw: OpaquePointer) -> DBusHandlerResult {
        let serial = dbus_message_get_reply_serial(raw)
        guard let call = state.withLock({ $0.pending.removeValue(forKey: serial) }) else {
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
        let message = DBusMessageRef(retaining: raw)
        if message.type == DBusMessageKind.error {
            call.complete(.failure(message.asError()))
        } else {
            do {
                call.complete(.success(DBusReply(sender: message.sender ?? "", arguments: try message.arguments())))
            } catch {
                call.complete(.failure(error))
            }
        }
        return DBUS_HANDLER_RESULT_HANDLED
    }

    private func handleSignal(_ raw: OpaquePointer) {
        // The time the loop woke up to read it: libdbus' read and parse count as ours.
        let receivedAt = wokeAt
        guard let p = dbus_message_get_path(raw), let i = dbus_message_get_interface(raw),
              let m = dbus_message_get_member(raw) else { return }
        if strcmp(m, "PropertiesChanged") == 0, strcmp(i, DBusConnection.propertiesInterface) == 0,
           deliverToPropertySink(raw, path: p, receivedAt: receivedAt) {
            return
        }
        let path = DBusObjectPath(unchecked: String(cString: p))
        let interface = String(cString: i)
        let member = String(cString: m)
        let sender = dbus_message_get_sender(raw).map { String(cString: $0) } ?? ""
        var arguments: [DBusValue]?
        func decoded() -> [DBusValue]? {
            if arguments == nil {
                do { arguments = try DBusUnmarshaller.arguments(of: raw) } catch {
                    logger.info("dropped signal \(interface).\(member) from \(sender): \(error)")
                    arguments = nil
                }
            }
            return arguments
        }
        if sender == "org.freedesktop.DBus", interface == "org.freedesktop.DBus", member == "NameOwnerChanged",
           let args = decoded(), args.count == 3, case .string(let name) = args[0], case .string(let owner) = args[2] {
            // Update owners before anyone hears of the change, so rules see the new owner.
            setOwner(owner, of: name)
        }
        let (subscribers, owners) = state.withLock { ($0.subscribers, $0.owners) }
        var signal: DBusSignal?
        for subscriber in subscribers {
            let rule = subscriber.rule
            let owner = rule.senderIsWellKnown ? owners[rule.sender!] : nil
            guard rule.matchesHeader(sender: sender, owner: owner, path: path, interface: interface, member: member) else { continue }
            guard let args = decoded() else { return }
            guard rule.arguments.isEmpty || rule.matchesArguments(args) else { continue }
            if signal == nil {
                signal = DBusSignal(sender: sender, path: path, interface: interface, member: member,
                                    arguments: args, receivedAtNanoseconds: receivedAt)
            }
            subscriber.deliver(signal!)
        }
    }

    /// The direct path of `DBusPropertyBytesSink`: true when a sink took the signal.
    private func deliverToPropertySink(_ raw: OpaquePointer, path: UnsafePointer<CChar>, receivedAt: UInt64) -> Bool {
        let key = String(cString: path)
        let found = state.withLock { s -> (DBusPropertyBytesSink, String?)? in
            guard let sink = s.propertySinks[key] else { return nil }
            return (sink, s.owners[sink.sender])
        }
        guard let (sink, owner) = found, let owner, !owner.isEmpty, let sender = dbus_message_get_sender(raw),
              strcmp(sender, owner) == 0, let bytes = sink.bytes(of: raw) else { return false }
        sink.deliver(bytes, receivedAt)
        return true
    }
}
