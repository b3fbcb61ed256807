// Reads BlueZ AcquireNotify sockets (SOCK_SEQPACKET, one datagram per notification) on one poll thread.
import Foundation
import Glibc
import Synchronization

/// The reader of every acquired notification socket of the process.
///
/// One dedicated thread waits in `poll` on all sockets and a self-pipe (used to wake it
/// for additions and removals); each datagram is read at once, stamped with
/// CLOCK_MONOTONIC right after `recv` and handed to the socket's handler on that thread.
/// Handlers must be quick (decode, hand over); they must not block. When the peer hangs
/// up (BlueZ closes the socket on disconnect) the socket is closed here and `onClosed` runs
/// once. `close(_:)` from any thread stops delivery; its `onClosed` is not called.
final class NotifySocket: Sendable {
    typealias Handler = @Sendable (_ bytes: [UInt8], _ arrival: Double) -> Void
    typealias ClosedHandler = @Sendable () -> Void

    /// A registered socket; pass it to `close(_:)`.
    struct Token: Hashable, Sendable { fileprivate let id: Int }

    static let shared = NotifySocket()

    private struct Entry { var fd: Int32; var mtu: Int; var onData: Handler; var onClosed: ClosedHandler }
    private struct State {
        var nextID = 1
        var entries: [Int: Entry] = [:]
        var pendingRemove: [Int] = []
    }

    /// A self-pipe: writing a byte wakes the reader so it picks up added and removed sockets.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let state = Mutex(State())

    private init() {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        let thread = Thread { [self] in self.loop() }
        thread.name = "percbridge-notify"
        thread.start()
    }

    /// The current CLOCK_MONOTONIC time in seconds (the timeline of `SensorEvent.arrival`).
    static func monotonicNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// CLOCK_MONOTONIC in nanoseconds (for latency figures finer than `monotonicNow()`).
    static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Starts reading `fd` (which this object now owns and will close).
    func add(fd: Int32, mtu: Int, onData: @escaping Handler, onClosed: @escaping ClosedHandler) -> Token {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        let id = state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            s.entries[id] = Entry(fd: fd, mtu: max(mtu, 23), onData: onData, onClosed: onClosed)
            return id
        }
        poke()
        return Token(id: id)
    }

    /// Stops reading and closes the socket (releasing BlueZ's acquisition).
    func close(_ token: Token) {
        state.withLock { $0.pendingRemove.append(token.id) }
        poke()
    }

    private func poke() {
        var one: UInt8 = 1
        _ = write(wakeWrite, &one, 1)
    }

    private func loop() {
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            // poll(2) over a handful of sockets costs no more than epoll and needs no extra headers.
            let watched = state.withLock { s -> [(Int, Int32)] in
                for id in s.pendingRemove { if let e = s.entries.removeValue(forKey: id) { Glibc.close(e.fd) } }
                s.pendingRemove.removeAll()
                return s.entries.map { ($0.key, $0.value.fd) }
            }
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            fds += watched.map { pollfd(fd: $0.1, events: Int16(POLLIN), revents: 0) }
            let n = poll(&fds, nfds_t(fds.count), -1)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                _ = read(wakeRead, &drain, drain.count)
            }
            for (i, (id, _)) in watched.enumerated() where fds[i + 1].revents != 0 {
                guard let entry = state.withLock({ $0.entries[id] }) else { continue }
                if buffer.count < entry.mtu { buffer = [UInt8](repeating: 0, count: entry.mtu) }
                var hungUp = Int32(fds[i + 1].revents) & (POLLHUP | POLLERR | POLLNVAL) != 0
                // Drain every queued datagram; a zero-length read is the peer's hang-up.
                while true {
                    let got = buffer.withUnsafeMutableBytes { recv(entry.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                    if got > 0 {
                        let arrival = Self.monotonicNow()
                        entry.onData(Array(buffer[0..<got]), arrival)
                        continue
                    }
                    if got == 0 { hungUp = true }
                    else if errno == EINTR { continue }
                    else if errno != EAGAIN && errno != EWOULDBLOCK { hungUp = true }
                    break
                }
                if hungUp, let removed = state.withLock({ $0.entries.removeValue(forKey: id) }) {
                    Glibc.close(removed.fd)
                    removed.onClosed()
                }
            }
        }
    }
}
