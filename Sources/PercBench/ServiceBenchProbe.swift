// `bench service`: touch latency — a probe finger moved at random moments, timed to the TUIO
// datagram and the WebSocket frame that first show it (TUIO in, and evdev through umockdev).
import Foundation
import Histogram
import MTKTangibles
import NIOCore
import NIOPosix
import Synchronization
#if canImport(Glibc)
import Glibc
import PercSystem
import PercInput
import PercEmulator
import PercRuntime
#endif

/// Touch → output latency of one phase. TUIO in: the bench's send call → receipt (both ends on
/// the bench's CLOCK_MONOTONIC). evdev in: serve's own read time (its recording's `arrival`)
/// → receipt, because umockdev's script player, not the bench, writes the events.
struct BenchTouchLatency: Sendable {
    var toTUIO = BenchLatency.Result.histogram()
    var toApp = BenchLatency.Result.histogram()
    var moves = 0
    var notSeenInTUIO = 0
    var notSeenByApp = 0
    /// evdev moves that no output showed because serve cut them into one frame with the next
    /// move (umockdev's script player, late under load, wrote both within one frame, or the
    /// read raced a tick): a frame shows the latest position, so they are not lost. Not in
    /// `moves`.
    var superseded = 0

    /// Where the probe finger is after its `n`th move: 1 mm steps along a line below the
    /// fingers and the PERCs (BenchLayout), so each move is a position no other contact has.
    static func position(_ n: Int) -> Vec2 { Vec2(100 + Double(n % 300), 520) }

    /// `supersededBy`: the next move's position, when serve's recording put that move into the
    /// same frame as this one; the move counts as superseded when an output missed it and both
    /// outputs showed that next move.
    mutating func add(since start: Seconds, position: Vec2, watcher: BenchTUIOWatcher, app: BenchWSProbeApp,
                      supersededBy next: Vec2? = nil) {
        let tuio = watcher.probeSeen(after: start, at: position), shown = app.probeSeen(after: start, at: position)
        if tuio == nil || shown == nil, let next,
           watcher.probeSeen(after: start, at: next) != nil, app.probeSeen(after: start, at: next) != nil {
            superseded += 1
            return
        }
        moves += 1
        if let t = tuio {
            _ = toTUIO.record(UInt64(max(0, t - start) * 1e9))
        } else { notSeenInTUIO += 1 }
        if let t = shown {
            _ = toApp.record(UInt64(max(0, t - start) * 1e9))
        } else { notSeenByApp += 1 }
    }
}

/// When each probe position was seen in an output: pointers on the probe's line, keyed by x
/// in 0.01 mm (float32 normalised coordinates carry ~0.0001 mm on this surface), the last 32
/// receive times of each (the probe comes back to a position every 300 moves).
struct BenchProbeSightings: Sendable {
    private var times: [Int: [Seconds]] = [:]
    private static let line = BenchTouchLatency.position(0).y

    private static func key(_ p: Vec2) -> Int? {
        abs(p.y - line) <= 0.01 ? Int((p.x * 100).rounded()) : nil
    }

    mutating func saw(_ p: Vec2, at time: Seconds) {
        guard let k = Self.key(p) else { return }
        times[k, default: []].append(time)
        if times[k]!.count > 32 { times[k]!.removeFirst() }
    }

    func first(after time: Seconds, at p: Vec2) -> Seconds? {
        Self.key(p).flatMap { times[$0]?.first { $0 > time } }
    }
}

/// One WebSocket app that decodes every `frame` and notes when it saw each probe position,
/// and when it received each frame (its `time`, the tick; the burst phases).
///
/// It reads on a thread of its own, scheduled as the bench's TUIO receiver is (SCHED_FIFO
/// when allowed): on the shared pool's ordinary threads its wake-ups waited behind the
/// bench's own work, and "touch → WebSocket" carried that wait while "touch → TUIO" did not.
final class BenchWSProbeApp: Sendable {
    static let group: MultiThreadedEventLoopGroup = {
        let g = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        try? g.next().submit {
            ThreadName.setCurrent("bench-ws-probe")
            realtime.withLock { $0 = ReceiveThreadPriority.promoteCurrentThread(as: .touchInput) }
        }.wait()
        return g
    }()
    private static let realtime = Mutex(false)
    /// How the probe app's thread is scheduled (for the bench's header line).
    static var scheduling: String {
        _ = group
        return realtime.withLock { $0 } ? "SCHED_FIFO" : "ordinary"
    }

    private let sightings = Mutex(BenchProbeSightings())
    /// (frame time, received), in the order received; the newest `maxFrames` (a 10 s phase
    /// at the event clock's 1,000 Hz cap is 10,000).
    private let received = Mutex(BenchFrameReceipts())
    private let upgradedFlag = Atomic<Bool>(false)
    private let channel = Mutex<(any Channel)?>(nil)

    /// `decodePointers` false: frames are only timed, not decoded (the burst phases: the
    /// bench's own JSON decoding would hold back the next read).
    static func connect(port: Int, decodePointers: Bool = true) async throws -> BenchWSProbeApp {
        let app = BenchWSProbeApp()
        let ch = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(BenchWSReader(port: port, decodePointers: decodePointers) { event in
                        switch event {
                        case .upgraded: app.upgradedFlag.store(true, ordering: .releasing)
                        case .frame(let time, let at): app.received.withLock { $0.add(time: time, received: at) }
                        case .pointers(let received, let positions):
                            app.sightings.withLock { s in for p in positions { s.saw(p, at: received) } }
                        default: break
                        }
                    })
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        app.channel.withLock { $0 = ch }
        let deadline = MonotonicClock.now() + 10
        while !app.upgradedFlag.load(ordering: .acquiring), MonotonicClock.now() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return app
    }

    /// The frames received so far (frame time, receive time), oldest first.
    var frameReceipts: BenchFrameReceipts { received.withLock { $0 } }

    /// Receive time of the first frame after `time` showing the probe at `position` (mm).
    func probeSeen(after time: Seconds, at position: Vec2) -> Seconds? {
        sightings.withLock { $0.first(after: time, at: position) }
    }

    func close() async {
        let ch = channel.withLock { c -> (any Channel)? in defer { c = nil }; return c }
        try? await ch?.close()
    }
}

/// A second TUIO source ("percbridge-probe") with one finger, moved 1 mm at random moments
/// (10–30 ms apart, so moves fall at every phase of a frame clock's period). Sent with a
/// plain `sendto` on the calling thread right after the clock is read, so no hop to an event
/// loop thread of the bench's own is in the figure.
final class BenchTouchProbe: Sendable {
    private let fd: Int32
    private let target: SocketAddress

    private init(fd: Int32, target: SocketAddress) { self.fd = fd; self.target = target }

    static func start(port: Int) async throws -> BenchTouchProbe {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BenchFailure("cannot open a UDP socket for the touch probe") }
        return BenchTouchProbe(fd: fd, target: try SocketAddress(ipAddress: "127.0.0.1", port: port))
    }

    /// Sends one datagram; returns the clock read just before the send.
    private func send(_ datagram: [UInt8]) -> Seconds {
        datagram.withUnsafeBytes { bytes in
            target.withSockAddr { address, length in
                let start = MonotonicClock.now()
                _ = sendto(fd, bytes.baseAddress, bytes.count, 0, address, socklen_t(length))
                return start
            }
        }
    }

    /// Moves the probe until `end`, each move timed from just before the send call; waits up
    /// to 1 s for each to show in TUIO and at the app before the next.
    func run(until end: Seconds, watcher: BenchTUIOWatcher, app: BenchWSProbeApp) async throws -> BenchTouchLatency {
        var result = BenchTouchLatency()
        var n = 0
        while MonotonicClock.now() < end {
            try await Task.sleep(for: .microseconds(Int.random(in: 10_000...30_000)))
            n += 1
            let position = BenchTouchLatency.position(n)
            let datagram = BenchTouchSender.frame(source: "percbridge-probe", alive: [1], sets: [(Int32(1), position)], fseq: Int32(n))
            let start = send(datagram)
            while MonotonicClock.now() < start + 1 {
                if watcher.probeSeen(after: start, at: position) != nil, app.probeSeen(after: start, at: position) != nil { break }
                try await Task.sleep(for: .milliseconds(2))
            }
            result.add(since: start, position: position, watcher: watcher, app: app)
        }
        return result
    }

    func close() async { _ = Glibc.close(fd) }
}

/// The evdev phase's probe: a umockdev touchscreen (protocol B, 10 units/mm over the bench's
/// surface) whose script moves one finger 1 mm at a time, 10–30 ms apart, for `seconds`.
enum BenchEvdevProbe {
    static func touchscreen(seconds: Double) throws -> UmockdevTouchscreen {
        let axes: [(UInt16, AbsInfo)] = [
            (EvdevCode.ABS_MT_SLOT, AbsInfo(minimum: 0, maximum: 9)),
            (EvdevCode.ABS_MT_POSITION_X, AbsInfo(minimum: 0, maximum: Int32(BenchLayout.surface.x * 10), resolution: 10)),
            (EvdevCode.ABS_MT_POSITION_Y, AbsInfo(minimum: 0, maximum: Int32(BenchLayout.surface.y * 10), resolution: 10)),
            (EvdevCode.ABS_MT_TRACKING_ID, AbsInfo(minimum: 0, maximum: 65535)),
        ]
        var time = Date().timeIntervalSince1970  // umockdev refuses EVIOCSCLOCKID: wall-clock event times
        var frames: [[InputEvent]] = []
        var n = 0
        while Double(n) * 0.02 < seconds {
            n += 1
            let p = BenchTouchLatency.position(n)
            var f: [InputEvent] = [InputEvent(time: time, type: EvdevCode.EV_ABS, code: EvdevCode.ABS_MT_SLOT, value: 0)]
            if n == 1 { f.append(InputEvent(time: time, type: EvdevCode.EV_ABS, code: EvdevCode.ABS_MT_TRACKING_ID, value: 1)) }
            f.append(InputEvent(time: time, type: EvdevCode.EV_ABS, code: EvdevCode.ABS_MT_POSITION_X, value: Int32((p.x * 10).rounded())))
            f.append(InputEvent(time: time, type: EvdevCode.EV_ABS, code: EvdevCode.ABS_MT_POSITION_Y, value: Int32((p.y * 10).rounded())))
            f.append(InputEvent(time: time, type: EvdevCode.EV_SYN, code: EvdevCode.SYN_REPORT, value: 0))
            frames.append(f)
            time += Double(Int.random(in: 10...30)) / 1000
        }
        return try UmockdevTouchscreen(name: "PercBridge Bench Panel", axes: axes, frames: frames)
    }

    /// The evdev contacts serve recorded between `from` and `to`: arrival, position, and the
    /// frame they were cut into (the number of frames recorded before them: serve records
    /// inputs and frames in the order its frame clock takes them, under one lock).
    static func recordedContacts(path: String, from: Seconds, to: Seconds) throws
        -> [(arrival: Seconds, position: Vec2, frame: Int)] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let decoder = JSONDecoder()
        var out: [(Seconds, Vec2, Int)] = []
        var frames = 0
        for line in text.split(separator: "\n") {
            if BenchLatency.isFrameLine(line) {
                frames += 1
                continue
            }
            guard line.hasPrefix("{\"contact\":"),
                  case .contact(let u)? = try? decoder.decode(RecordEntry.self, from: Data(line.utf8)),
                  u.origin.kind == .evdev, u.phase != .end, u.arrival >= from, u.arrival <= to else { continue }
            out.append((u.arrival, u.position, frames))
        }
        return out
    }
}
