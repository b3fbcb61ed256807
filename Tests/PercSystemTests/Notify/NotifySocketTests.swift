// The AcquireNotify reader on real SOCK_SEQPACKET socket pairs.
import Foundation
import Glibc
import Synchronization
import Testing
@testable import PercSystem

@Suite struct NotifySocketTests {
    /// A socket pair: [0] is handed to the reader, [1] plays BlueZ's end.
    private static func pair() throws -> (ours: Int32, bluez: Int32) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        return (fds[0], fds[1])
    }

    /// A write lock over the whole file, held by `fd`'s open file description; 0 or -1.
    private static func lock(_ fd: Int32) -> Int32 {
        var l = flock()
        l.l_type = Int16(F_WRLCK)
        l.l_whence = Int16(SEEK_SET)
        let ofdSetLock: Int32 = 37  // F_OFD_SETLK (Linux <fcntl.h>, behind _GNU_SOURCE)
        return fcntl(fd, ofdSetLock, &l)
    }

    private static func send(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
    }

    /// Notifications the PERC sent before its link went, still queued when the link is seen to
    /// go (bluetoothd's leaving the bus can be read before them), are delivered by `close`.
    @Test func closingDeliversWhatIsStillQueuedFirst() async throws {
        for round in 0..<20 {
            let (ours, bluez) = try Self.pair()
            defer { Glibc.close(bluez) }
            let got = Mutex<[[UInt8]]>([])
            let closedByPeer = Atomic<Bool>(false)
            // Queued before the reader knows the socket: it may not have woken when `close` comes.
            for i in 0..<5 { Self.send(bluez, [UInt8(round), UInt8(i)]) }
            let token = try NotifySocket.shared.add(fd: ours, mtu: 23, onData: { bytes, _ in
                got.withLock { $0.append(bytes) }
            }, onClosed: { closedByPeer.store(true, ordering: .relaxed) })
            await NotifySocket.shared.close(token)
            let delivered = got.withLock { $0 }
            #expect(delivered == (0..<5).map { [UInt8(round), UInt8($0)] }, "round \(round)")
            // Nothing more after close, and our end is closed (BlueZ sees the hang-up).
            Self.send(bluez, [0xFF])
            var poll = pollfd(fd: bluez, events: Int16(POLLIN), revents: 0)
            _ = Glibc.poll(&poll, 1, 1000)
            #expect(poll.revents & Int16(POLLHUP) != 0)
            #expect(got.withLock { $0.count } == 5)
            let peerClosed = closedByPeer.load(ordering: .relaxed)
            #expect(!peerClosed)
        }
    }

    /// The peer's hang-up is seen after everything it sent, and `onClosed` runs once; closing
    /// such a token afterwards returns at once.
    @Test func aHangUpComesAfterTheLastDatagram() async throws {
        let (ours, bluez) = try Self.pair()
        let got = Mutex<[[UInt8]]>([])
        let closes = Atomic<Int>(0)
        let token = try NotifySocket.shared.add(fd: ours, mtu: 23, onData: { bytes, _ in
            got.withLock { $0.append(bytes) }
        }, onClosed: { closes.add(1, ordering: .relaxed) })
        for i in 0..<3 { Self.send(bluez, [UInt8(i)]) }
        Glibc.close(bluez)
        for _ in 0..<200 where closes.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        let closedOnce = closes.load(ordering: .relaxed)
        #expect(closedOnce == 1)
        #expect(got.withLock { $0 } == [[0], [1], [2]])
        await NotifySocket.shared.close(token)
        let closedAfter = closes.load(ordering: .relaxed)
        #expect(closedAfter == 1)
    }

    /// A descriptor epoll cannot watch (a regular file) is refused with the reason and closed,
    /// not taken silently and never read; the reader goes on serving the others.
    @Test func aSocketTheReaderCannotWatchIsRefusedAndClosed() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(getpid())-\(UInt64.random(in: 0...UInt64.max))").path
        let file = open(path, O_CREAT | O_RDWR, 0o600)
        try #require(file >= 0)
        defer { unlink(path) }
        // An open-file-description lock on it goes when its last descriptor is closed: that
        // says it was closed even if another test reuses the number at once.
        try #require(Self.lock(file) == 0)
        var refused: NotifySocket.Refused?
        do {
            _ = try NotifySocket.shared.add(fd: file, mtu: 23, onData: { _, _ in }, onClosed: {})
        } catch {
            refused = error
        }
        #expect(refused?.operation == "epoll_ctl")
        #expect(refused?.errno == EPERM)
        #expect(refused.map { "\($0)".contains("Operation not permitted") } == true)
        // Closed by `add`: its lock went with it, so another opening of the file takes it.
        let other = open(path, O_RDWR)
        defer { Glibc.close(other) }
        #expect(Self.lock(other) == 0)
        #expect(NotifySocket.shared.isRunning)
        // And the reader still reads the next socket.
        let (ours, bluez) = try Self.pair()
        defer { Glibc.close(bluez) }
        let got = Mutex<[[UInt8]]>([])
        let token = try NotifySocket.shared.add(fd: ours, mtu: 23, onData: { bytes, _ in got.withLock { $0.append(bytes) } }, onClosed: {})
        Self.send(bluez, [7, 8])
        for _ in 0..<200 where got.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        await NotifySocket.shared.close(token)
        #expect(got.withLock { $0 } == [[7, 8]])
    }
}
