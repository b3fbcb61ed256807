// `bench service`: receives serve's TUIO 1.1 output on this host, stamping CLOCK_MONOTONIC at receive.
import MTKTangibles
import NIOCore
import NIOPosix
import Synchronization
import PercSystem
import PercInput

/// Counts the `/tuio/2Dobj` frames serve sends (frame rate, fseq gaps = lost datagrams) and
/// keeps the recent ones with the tangibles they show, so the latency phase can find the
/// first packet in which a tangible appeared or vanished. The receive time is taken as the
/// datagram comes off the socket on the event loop thread.
final class BenchTUIOWatcher: Sendable {
    struct Packet: Sendable {
        var time: Seconds
        var fseq: Int32
        /// Tangible ids (TUIO class ids) alive in this frame.
        var present: Set<Int>
    }

    struct Counters: Sendable {
        var frames = 0
        var firstTime: Seconds = 0
        var lastTime: Seconds = 0
        var gaps = 0
        var objectSum = 0
        var pointerSum = 0
        var pointerFrames = 0
        var fps: Double { frames > 1 && lastTime > firstTime ? Double(frames - 1) / (lastTime - firstTime) : 0 }
        var meanObjects: Double { frames > 0 ? Double(objectSum) / Double(frames) : 0 }
        var meanPointers: Double { pointerFrames > 0 ? Double(pointerSum) / Double(pointerFrames) : 0 }
    }

    private struct State {
        var sessionClass: [Int32: Int] = [:]
        var recent: [Packet] = []
        var probe = BenchProbeSightings()
        var counters = Counters()
        var lastFseq: Int32?
        var undecodable = 0
    }

    private let state = Mutex(State())
    private let channel = Mutex<(any Channel)?>(nil)
    static let keepPackets = 2048

    var port: Int { channel.withLock { $0?.localAddress?.port ?? 0 } }
    var undecodable: Int { state.withLock { $0.undecodable } }

    static func start() async throws -> BenchTUIOWatcher {
        let watcher = BenchTUIOWatcher()
        // serve's own touch-input loop type: a thread of its own (not behind the bench's
        // senders and apps on the shared loops), real-time when allowed, so what the bench
        // measures is serve and not the bench's receive thread waiting for a core.
        let ch = try await DatagramBootstrap(group: InputEventLoop.group)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 65536))
            .channelOption(.socketOption(.so_rcvbuf), value: 1 << 20)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DatagramHandler { bytes, _, _ in
                        watcher.received(bytes, at: MonotonicClock.now())
                    })
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        watcher.channel.withLock { $0 = ch }
        return watcher
    }

    func close() async {
        let ch = channel.withLock { c -> (any Channel)? in defer { c = nil }; return c }
        try? await ch?.close()
    }

    /// Starts a new measuring window (frame counts, gaps, means) and forgets old packets.
    func reset() {
        state.withLock { s in
            s.counters = Counters()
            s.recent.removeAll()
            s.probe = BenchProbeSightings()
            s.lastFseq = nil
        }
    }

    var counters: Counters { state.withLock { $0.counters } }
    var latest: Packet? { state.withLock { $0.recent.last } }

    /// The first packet received after `time` in which tangible `id` is (or is not) alive.
    func firstPacket(after time: Seconds, tangible id: Int, present: Bool) -> Packet? {
        state.withLock { s in s.recent.first { $0.time > time && $0.present.contains(id) == present } }
    }

    /// Receive time of the first `/tuio/2Dcur` datagram after `time` showing the probe finger
    /// at `position` (surface mm).
    func probeSeen(after time: Seconds, at position: Vec2) -> Seconds? {
        state.withLock { $0.probe.first(after: time, at: position) }
    }

    private func received(_ bytes: [UInt8], at time: Seconds) {
        guard let packet = try? OSCPacket.decode(bytes) else {
            state.withLock { $0.undecodable += 1 }
            return
        }
        let messages = packet.messages
        guard let profile = messages.first?.address else { return }
        var alive: [Int32] = []
        var sets: [(Int32, Int)] = []
        var cursors: [Vec2] = []
        var fseq: Int32?
        for m in messages {
            guard case .string(let command)? = m.arguments.first else { continue }
            switch command {
            case "alive": alive = m.arguments.dropFirst().compactMap { a in a.integerValue.map { Int32(truncatingIfNeeded: $0) } }
            case "set" where profile == "/tuio/2Dobj":
                if let sid = m.arguments.dropFirst().first?.integerValue, let cls = m.arguments.dropFirst(2).first?.integerValue {
                    sets.append((Int32(truncatingIfNeeded: sid), Int(cls)))
                }
            case "set" where profile == "/tuio/2Dcur":
                let a = Array(m.arguments.dropFirst(2).prefix(2))
                if a.count == 2, case .float32(let x) = a[0], case .float32(let y) = a[1] {
                    cursors.append(Vec2(Double(x) * BenchLayout.surface.x, Double(y) * BenchLayout.surface.y))
                }
            case "fseq": fseq = m.arguments.dropFirst().first?.integerValue.map { Int32(truncatingIfNeeded: $0) }
            default: break
            }
        }
        state.withLock { s in
            if profile == "/tuio/2Dcur" {
                s.counters.pointerSum += alive.count
                s.counters.pointerFrames += 1
                for c in cursors { s.probe.saw(c, at: time) }
                return
            }
            guard profile == "/tuio/2Dobj", let fseq else { return }
            for (sid, cls) in sets { s.sessionClass[sid] = cls }
            let present = Set(alive.compactMap { s.sessionClass[$0] })
            if let last = s.lastFseq, fseq > last + 1 { s.counters.gaps += Int(fseq - last - 1) }
            s.lastFseq = fseq
            if s.counters.frames == 0 { s.counters.firstTime = time }
            s.counters.frames += 1
            s.counters.lastTime = time
            s.counters.objectSum += present.count
            s.recent.append(Packet(time: time, fseq: fseq, present: present))
            if s.recent.count > Self.keepPackets { s.recent.removeFirst(s.recent.count - Self.keepPackets) }
        }
    }
}
