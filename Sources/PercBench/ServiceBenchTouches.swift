// `bench service`: the bench's touch surface — fingers and PERC marker triples sent to serve as TUIO 1.1 at a fixed rate.
import Dispatch
import Foundation
import MTKTangibles
import NIOCore
import NIOPosix
import Synchronization
import PercSystem
import PercInput

/// Sends every contact (moving fingers plus the marker triples of placed PERCs) as
/// `/tuio/2Dcur` bundles at `rateHz`, from its own thread on absolute deadlines. A frame
/// with many contacts is split into datagrams of at most `setsPerDatagram` sets, each a
/// full TUIO frame (source, the whole alive list, its sets, its own fseq), because serve's
/// decoder drops a repeated fseq and its socket reads at most 2 KiB per datagram.
final class BenchTouchSender: Sendable {
    static let setsPerDatagram = 20

    private struct State {
        var fingers = 0
        /// Marker session ids and positions of each placed PERC (0-based index).
        var placed: [Int: [(Int32, Vec2)]] = [:]
        var nextSession: Int32 = 1000
        var fseq: Int32 = 0
        var datagrams = 0
    }

    private let channel: any Channel
    private let target: SocketAddress
    private let rateHz: Double
    private let state = Mutex(State())
    private let running = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    private init(channel: any Channel, target: SocketAddress, rateHz: Double) {
        self.channel = channel; self.target = target; self.rateHz = rateHz
    }

    static func start(port: Int, fingers: Int, rateHz: Double) async throws -> BenchTouchSender {
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let sender = BenchTouchSender(channel: channel, target: try SocketAddress(ipAddress: "127.0.0.1", port: port), rateHz: rateHz)
        sender.state.withLock { $0.fingers = fingers }
        sender.running.store(true, ordering: .releasing)
        let thread = Thread { [sender] in
            ThreadName.setCurrent("bench-touches")
            sender.loop()
            sender.done.signal()
        }
        thread.start()
        return sender
    }

    /// Puts PERC `k`'s three markers down (new touches with new session ids), `offset` mm
    /// from its place in the layout.
    func place(perc k: Int, at offset: Vec2 = .zero) {
        state.withLock { s in
            s.placed[k] = BenchLayout.markers(ofPerc: k).map { p in
                defer { s.nextSession += 1 }
                return (s.nextSession, p + offset)
            }
        }
    }

    /// Slides a placed PERC `k` to `offset` mm from its place in the layout: the same touches
    /// at new positions, as a PERC moved on the surface. False (nothing moved) while it is lifted.
    @discardableResult
    func move(perc k: Int, to offset: Vec2) -> Bool {
        state.withLock { s in
            guard let touches = s.placed[k] else { return false }
            s.placed[k] = zip(touches, BenchLayout.markers(ofPerc: k)).map { touch, home in (touch.0, home + offset) }
            return true
        }
    }

    func lift(perc k: Int) { _ = state.withLock { $0.placed.removeValue(forKey: k) } }

    var datagramsSent: Int { state.withLock { $0.datagrams } }

    func stop() async {
        guard running.compareExchange(expected: true, desired: false, ordering: .acquiringAndReleasing).exchanged else { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread { [done] in done.wait(); c.resume() }
        }
        try? await channel.close()
    }

    private func loop() {
        let period = 1 / rateHz
        var deadline = MonotonicClock.now()
        let start = deadline
        while running.load(ordering: .acquiring) {
            deadline += period
            MonotonicClock.sleep(until: deadline)
            let now = MonotonicClock.now()
            if now - deadline > period { deadline = now }  // we were descheduled: no burst of late frames
            for datagram in datagrams(at: now - start) {
                let buffer = channel.allocator.buffer(bytes: datagram)
                channel.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: buffer), promise: nil)
            }
        }
    }

    private func datagrams(at time: Seconds) -> [[UInt8]] {
        state.withLock { s in
            var contacts: [(Int32, Vec2)] = (0..<s.fingers).map { (Int32($0 + 1), BenchLayout.finger($0, at: time)) }
            for k in s.placed.keys.sorted() { contacts += s.placed[k]! }
            let alive = contacts.map(\.0)
            var out: [[UInt8]] = []
            var index = 0
            repeat {
                let part = contacts[index..<min(index + Self.setsPerDatagram, contacts.count)]
                index += Self.setsPerDatagram
                s.fseq += 1
                out.append(Self.frame(source: "percbridge-bench", alive: alive, sets: part, fseq: s.fseq))
            } while index < contacts.count
            s.datagrams += out.count
            return out
        }
    }

    /// One TUIO 1.1 `/tuio/2Dcur` frame as one bundle: source, the whole alive list, `sets`
    /// (positions in surface mm, sent normalised), fseq.
    static func frame(source: String, alive: [Int32], sets: some Collection<(Int32, Vec2)>, fseq: Int32) -> [UInt8] {
        let setMessages = sets.map { id, p in
            OSCMessage("/tuio/2Dcur", [.string("set"), .int32(id), .float32(Float(p.x / BenchLayout.surface.x)),
                                       .float32(Float(p.y / BenchLayout.surface.y)), .float32(0), .float32(0), .float32(0)])
        }
        let messages = [OSCMessage("/tuio/2Dcur", [.string("source"), .string(source)]),
                        OSCMessage("/tuio/2Dcur", [.string("alive")] + alive.map { .int32($0) })] + setMessages
            + [OSCMessage("/tuio/2Dcur", [.string("fseq"), .int32(fseq)])]
        return OSCPacket.bundle(OSCBundle(timeTag: .immediately, messages.map(OSCPacket.message))).encoded()
    }
}
