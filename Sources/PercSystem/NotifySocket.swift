// Reads BlueZ AcquireNotify sockets (SOCK_SEQPACKET, one datagram per notification) on one epoll thread.
import CDBus
import Foundation
import Glibc
import Synchronization

/// The reader of every acquired notification socket of the process.
///
/// One dedicated thread (`pb-notify`) waits in `epoll_wait` on all sockets; each
/// readable socket is drained at once, every datagram stamped with CLOCK_MONOTONIC right
/// after its `recv` and handed to the socket's handler on that thread. Nothing is
/// allocated per wake-up (the epoll event array and the receive buffer are made once);
/// per datagram only the `[UInt8]` handed to the handler is. Sockets are added and removed
/// with `epoll_ctl` from any thread, which needs no wake-up of the waiting thread.
///
/// Handlers must be quick (decode, hand over); they must not block. When the peer hangs up
/// (BlueZ closes the socket on disconnect) the socket is closed here and `onClosed` runs
/// once. `close(_:)` from any thread hands the socket back to the reader thread, which
/// delivers the datagrams still queued in it (notifications the PERC sent before its link
/// went: bluetoothd's leaving the bus may be seen before they are read), then closes it;
/// `close` returns after that, and nothing of that socket is delivered afterwards. Only the
/// reader thread reads and closes descriptors, so delivery keeps its order and a number
/// cannot be reused while a `recv` on it may still be under way.
///
/// A socket the reader cannot watch (no epoll instance: the process ran out of descriptors
/// when it was made; `epoll_ctl` refused the descriptor) is refused by `add`, which closes
/// it: the caller reads through StartNotify instead. Should the reader ever stop
/// (`epoll_wait` failing with anything but EINTR), every socket is closed with its
/// `onClosed`, as a hang-up, every waiting `close` returns, and `add` refuses from then on.
public final class NotifySocket: Sendable {
    public typealias Handler = @Sendable (_ bytes: [UInt8], _ arrival: Double) -> Void
    public typealias ClosedHandler = @Sendable () -> Void

    /// A registered socket; pass it to `close(_:)`.
    public struct Token: Hashable, Sendable { fileprivate let id: Int }

    /// Why `add` refused a socket (it closed it).
    public struct Refused: Error, CustomStringConvertible {
        public let errno: Int32
        public let operation: String
        /// `operation` failed just now (its `errno`).
        init(after operation: String) { errno = Glibc.errno; self.operation = operation }
        public var description: String { "the notification reader cannot watch the socket (\(operation): \(String(cString: strerror(errno))))" }
    }

    public static let shared = NotifySocket()

    private struct Entry { var fd: Int32; var onData: Handler; var onClosed: ClosedHandler }
    private struct State {
        var nextID = 1
        var entries: [Int: Entry] = [:]
        /// Sockets removed by `close(_:)`: drained and closed by the reader thread on its next
        /// round, which then resumes the waiting `close`.
        var toClose: [(entry: Entry, done: CheckedContinuation<Void, Never>)] = []
        /// Why the reader cannot run (its epoll instance or wake-up could not be made, or
        /// `epoll_wait` failed); nil while it runs.
        var stopped: Refused?
    }

    private let epollFD: Int32
    /// Wakes the reader so that it drains and closes removed sockets at once (epoll data 0).
    private let wakeFD: Int32
    private let state = Mutex(State())
    /// The largest datagram read (BLE ATT MTU is at most 517; longer ones are truncated).
    static let bufferSize = 4096

    private init() {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        let epollFailed = epollFD < 0 ? Refused(after: "epoll_create1") : nil
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        let wakeFailed = wakeFD < 0 ? Refused(after: "eventfd") : nil
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = 0
        if let why = epollFailed ?? wakeFailed
            ?? (epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) != 0 ? Refused(after: "epoll_ctl") : nil) {
            state.withLock { $0.stopped = why }
            return
        }
        let thread = Thread { [self] in
            ThreadName.setCurrent("pb-notify")
            self.loop()
        }
        thread.start()
    }

    /// Starts reading `fd` (which this object now owns and will close). `mtu` is BlueZ's
    /// answer; datagrams up to `bufferSize` bytes are read whole whatever it says. Throws
    /// `Refused` when the reader cannot watch it (it is closed then).
    public func add(fd: Int32, mtu: Int, onData: @escaping Handler, onClosed: @escaping ClosedHandler) throws(Refused) -> Token {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        do {
            return try state.withLock { s throws(Refused) in
                if let stopped = s.stopped { throw stopped }
                let id = s.nextID
                var event = epoll_event()
                event.events = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
                event.data.u64 = UInt64(id)
                guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else { throw Refused(after: "epoll_ctl") }
                s.nextID += 1
                s.entries[id] = Entry(fd: fd, onData: onData, onClosed: onClosed)
                return Token(id: id)
            }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// Whether the reader runs (false when it could not start or stopped; `add` refuses then).
    public var isRunning: Bool { state.withLock { $0.stopped == nil } }

    /// Delivers what is still queued in the socket, then closes it (releasing BlueZ's
    /// acquisition); returns once that is done. A socket already hung up is left alone.
    public func close(_ token: Token) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let removed = state.withLock { s -> Bool in
                guard let entry = s.entries.removeValue(forKey: token.id) else { return false }
                _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, entry.fd, nil)
                s.toClose.append((entry, done))
                return true
            }
            if removed {
                var one: UInt64 = 1
                _ = write(wakeFD, &one, 8)
            } else {
                done.resume()
            }
        }
    }

    /// Reads every datagram queued in `entry`'s socket, each handed over with its arrival;
    /// true when the peer hung up (a zero-length read or an error).
    private func drain(_ entry: Entry, into buffer: UnsafeMutableRawPointer) -> Bool {
        while true {
            let got = recv(entry.fd, buffer, Self.bufferSize, Int32(MSG_DONTWAIT))
            if got > 0 {
                let arrival = MonotonicClock.now()
                entry.onData(Array(UnsafeRawBufferPointer(start: buffer, count: got)), arrival)
                continue
            }
            if got == 0 { return true }
            if errno == EINTR { continue }
            return errno != EAGAIN && errno != EWOULDBLOCK
        }
    }

    private func loop() {
        ReceiveThreadPriority.promoteCurrentThread()
        let maxEvents: Int32 = 64
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(maxEvents))
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 16)
        while true {
            let n = epoll_wait(epollFD, events, maxEvents, -1)
            if n < 0 {
                if errno == EINTR { continue }
                stop(Refused(after: "epoll_wait"), buffer: buffer)
                return
            }
            for i in 0..<Int(n) {
                let id = Int(events[i].data.u64)
                let flags = events[i].events
                if id == 0 {
                    var counter: UInt64 = 0
                    _ = read(wakeFD, &counter, 8)
                    continue
                }
                guard let entry = state.withLock({ $0.entries[id] }) else { continue }
                // Drain every queued datagram; a zero-length read is the peer's hang-up.
                let hungUp = drain(entry, into: buffer)
                    || flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue) != 0
                if hungUp, let removed = state.withLock({ s -> Entry? in
                    guard let e = s.entries.removeValue(forKey: id) else { return nil }
                    _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, e.fd, nil)
                    return e
                }) {
                    Glibc.close(removed.fd)
                    removed.onClosed()
                }
            }
            closeHandedBack(buffer: buffer)
        }
    }

    /// Drains and closes the sockets `close(_:)` handed back, and resumes their callers.
    private func closeHandedBack(buffer: UnsafeMutableRawPointer) {
        let closing = state.withLock { s -> [(entry: Entry, done: CheckedContinuation<Void, Never>)] in
            guard !s.toClose.isEmpty else { return [] }
            defer { s.toClose.removeAll(keepingCapacity: true) }
            return s.toClose
        }
        for (entry, done) in closing {
            _ = drain(entry, into: buffer)
            Glibc.close(entry.fd)
            done.resume()
        }
    }

    /// The reader cannot go on: what is queued is delivered, every socket closed as if its
    /// peer hung up (its link falls back to StartNotify when it subscribes again), every
    /// waiting `close` returns, and `add` refuses from now on.
    private func stop(_ why: Refused, buffer: UnsafeMutableRawPointer) {
        let open = state.withLock { s in
            s.stopped = why
            defer { s.entries.removeAll() }
            return s.entries.sorted { $0.key < $1.key }.map(\.value)
        }
        for entry in open {
            _ = drain(entry, into: buffer)
            Glibc.close(entry.fd)
            entry.onClosed()
        }
        closeHandedBack(buffer: buffer)
    }
}
