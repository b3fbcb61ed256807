// `bench service` and `bench soak`: app-protocol WebSocket clients on raw NIO TCP — readers that time each frame (and may answer), and one that never reads.
import Foundation
import Histogram
import MTKTangibles
import NIOCore
import NIOPosix
import Synchronization
import PercSystem

/// `count` connections to serve's `/ws`. Readers parse each server frame (unmasked, RFC 6455)
/// and, for `frame` messages, record frame time → receive time; the stalled client (if any)
/// sends its upgrade request and then never reads (autoRead off, a 4 KiB receive buffer),
/// so the service's writes to it back up at once.
final class BenchWSClients: Sendable {
    struct Stats: Sendable {
        var framesPerClient: [Int: Int] = [:]
        var upgraded = 0
        var closed = 0
        var latency = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
    }

    private let stats = Mutex(Stats())
    private let channels = Mutex<[any Channel]>([])
    private let measuring = Atomic<Bool>(false)

    /// Connects `readers` reading clients and, if `stalled`, one that never reads. With
    /// `hello`, each reader sends that message once upgraded (e.g. to say it draws).
    static func connect(port: Int, readers: Int, stalled: Bool, hello: String? = nil) async throws -> BenchWSClients {
        let clients = BenchWSClients()
        let answer = hello.map(BenchWSReader.helloOnUpgrade)
        for i in 0..<readers {
            let ch = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(BenchWSReader(port: port, answer: answer) { event in
                            clients.record(client: i, event)
                        })
                    }
                }
                .connect(host: "127.0.0.1", port: port).get()
            clients.channels.withLock { $0.append(ch) }
        }
        if stalled {
            let ch = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.autoRead, value: false)
                .channelOption(.socketOption(.so_rcvbuf), value: 4096)
                .connect(host: "127.0.0.1", port: port).get()
            try await ch.writeAndFlush(ch.allocator.buffer(string: BenchWSReader.upgradeRequest(port: port)))
            clients.channels.withLock { $0.append(ch) }
        }
        return clients
    }

    /// Clears the counts and starts recording (frames before this are not counted).
    func startMeasuring() {
        stats.withLock { s in
            s.framesPerClient = [:]
            s.latency.reset()
        }
        measuring.store(true, ordering: .releasing)
    }

    func stopMeasuring() -> Stats {
        measuring.store(false, ordering: .releasing)
        return stats.withLock { $0 }
    }

    var upgraded: Int { stats.withLock { $0.upgraded } }

    func close() async {
        let all = channels.withLock { c -> [any Channel] in defer { c = [] }; return c }
        for ch in all { try? await ch.close() }
    }

    private func record(client: Int, _ event: BenchWSReader.Event) {
        switch event {
        case .upgraded: stats.withLock { $0.upgraded += 1 }
        case .closed: stats.withLock { $0.closed += 1 }
        case .pointers, .message: break
        case .frame(let frameTime, let received):
            guard measuring.load(ordering: .acquiring) else { return }
            stats.withLock { s in
                s.framesPerClient[client, default: 0] += 1
                _ = s.latency.record(UInt64(max(0, received - frameTime) * 1e9))
            }
        }
    }
}

/// One reading WebSocket client: the upgrade, then server frames parsed from the byte stream.
final class BenchWSReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    enum Event {
        case upgraded, closed, frame(time: Seconds, received: Seconds), pointers(received: Seconds, positions: [Vec2])
        /// A message other than `frame` (hello, overlay, pong, error): its type, and an overlay's id and patch count.
        case message(type: String, overlay: UInt64?, patches: Int)
    }

    private let port: Int
    private let decodePointers: Bool
    private let answer: ((Event) -> [String])?
    private let onEvent: (Event) -> Void
    private var buffer = ByteBuffer()
    private var upgraded = false

    /// With `decodePointers`, each `frame` is also decoded and its pointers' positions
    /// reported. With `answer`, every other message is decoded too (`.message`), and the
    /// texts `answer` returns for an event are sent back at once (an app's replies: hello,
    /// presented).
    init(port: Int, decodePointers: Bool = false, answer: ((Event) -> [String])? = nil, onEvent: @escaping (Event) -> Void) {
        self.port = port; self.decodePointers = decodePointers; self.answer = answer; self.onEvent = onEvent
    }

    private struct PointerFrame: Decodable {
        struct Pointer: Decodable { var x: Double; var y: Double }
        var pointers: [Pointer]?
    }

    private struct OtherMessage: Decodable {
        struct Patch: Decodable { var id: UInt64 }
        var type: String
        var overlay: UInt64?
        var patches: [Patch]?
    }

    static func upgradeRequest(port: Int) -> String {
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: cGVyY2JyaWRnZWJlbmNoMQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: Self.upgradeRequest(port: port))), promise: nil)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        onEvent(.closed)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let received = MonotonicClock.now()
        var incoming = unwrapInboundIn(data)
        buffer.writeBuffer(&incoming)
        if !upgraded {
            let view = buffer.readableBytesView
            guard let end = view.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
            let head = String(decoding: view[view.startIndex..<end.lowerBound], as: UTF8.self)
            guard head.hasPrefix("HTTP/1.1 101") else { context.close(promise: nil); return }
            buffer.moveReaderIndex(forwardBy: end.upperBound - view.startIndex)
            upgraded = true
            emit(.upgraded, context: context)
        }
        var wrote = false
        while let (opcode, payload) = nextFrame() {
            if opcode == 8 { context.close(promise: nil); return }
            if opcode == 9 {
                // serve pings every 30 s (hummingbird-websocket's auto-ping) and closes a
                // client that does not answer, as a browser does, with a pong.
                context.write(NIOAny(Self.clientFrame(opcode: 0xA, Array(payload), allocator: context.channel.allocator)), promise: nil)
                wrote = true
            }
            guard opcode == 1 else { continue }
            if let t = Self.frameTime(payload) {
                emit(.frame(time: t, received: received), context: context)
                if decodePointers, let f = try? JSONDecoder().decode(PointerFrame.self, from: Data(payload)) {
                    onEvent(.pointers(received: received, positions: (f.pointers ?? []).map { Vec2($0.x, $0.y) }))
                }
            } else if answer != nil, let m = try? JSONDecoder().decode(OtherMessage.self, from: Data(payload)) {
                emit(.message(type: m.type, overlay: m.overlay, patches: m.patches?.count ?? 0), context: context)
            }
        }
        buffer.discardReadBytes()
        if wrote || answer != nil { context.flush() }
    }

    /// Hands `event` on, and writes what `answer` replies (flushed at the end of the read).
    private func emit(_ event: Event, context: ChannelHandlerContext) {
        onEvent(event)
        for text in answer?(event) ?? [] {
            context.write(NIOAny(Self.clientFrame(opcode: 1, Array(text.utf8), allocator: context.channel.allocator)), promise: nil)
        }
    }

    /// An `answer` that sends `hello` once upgraded and nothing else.
    static func helloOnUpgrade(_ hello: String) -> @Sendable (Event) -> [String] {
        { event in
            guard case .upgraded = event else { return [] }
            return [hello]
        }
    }

    /// One frame from client to server (1: text, 0xA: pong): a client's frames must be
    /// masked (RFC 6455 5.3).
    static func clientFrame(opcode: UInt8, _ payload: [UInt8], allocator: ByteBufferAllocator) -> ByteBuffer {
        var out = allocator.buffer(capacity: payload.count + 14)
        out.writeInteger(0x80 | opcode)  // FIN
        if payload.count < 126 {
            out.writeInteger(UInt8(0x80 | payload.count))
        } else if payload.count <= 0xFFFF {
            out.writeInteger(UInt8(0x80 | 126))
            out.writeInteger(UInt16(payload.count))
        } else {
            out.writeInteger(UInt8(0x80 | 127))
            out.writeInteger(UInt64(payload.count))
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        out.writeBytes(mask)
        out.writeBytes(payload.enumerated().map { i, byte in byte ^ mask[i & 3] })
        return out
    }

    /// The next complete server frame (opcode, payload), or nil until more bytes come.
    private func nextFrame() -> (UInt8, ByteBufferView)? {
        let view = buffer.readableBytesView
        guard view.count >= 2 else { return nil }
        let b0 = view[view.startIndex], b1 = view[view.startIndex + 1]
        var length = Int(b1 & 0x7F)
        var header = 2
        if length == 126 {
            guard view.count >= 4 else { return nil }
            length = Int(view[view.startIndex + 2]) << 8 | Int(view[view.startIndex + 3])
            header = 4
        } else if length == 127 {
            guard view.count >= 10 else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(view[view.startIndex + $1]) }
            header = 10
        }
        guard view.count >= header + length else { return nil }
        let payload = view[(view.startIndex + header)..<(view.startIndex + header + length)]
        buffer.moveReaderIndex(forwardBy: header + length)
        return (b0 & 0x0F, payload)
    }

    /// The `time` of a `frame` message, found from the end (keys are sorted, so a frame ends
    /// `"time":T,"type":"frame"}`): no JSON decode for thousands of messages a second.
    static func frameTime(_ payload: ByteBufferView) -> Seconds? {
        let suffix = Array(",\"type\":\"frame\"}".utf8)
        guard payload.count > suffix.count, payload.suffix(suffix.count).elementsEqual(suffix) else { return nil }
        let key = Array("\"time\":".utf8)
        let end = payload.endIndex - suffix.count
        var start = end - key.count
        while start >= payload.startIndex, !payload[start..<(start + key.count)].elementsEqual(key) { start -= 1 }
        guard start >= payload.startIndex else { return nil }
        let digits = payload[(start + key.count)..<end]
        return Double(String(decoding: digits, as: UTF8.self))
    }
}

/// GET over plain HTTP/1.1 (Connection: close): serve's `/metrics`.
enum BenchHTTP {
    final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        private var bytes: [UInt8] = []
        private let done: EventLoopPromise<String>
        init(_ done: EventLoopPromise<String>) { self.done = done }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { bytes += unwrapInboundIn(data).readableBytesView }
        func channelInactive(context: ChannelHandlerContext) { done.succeed(String(decoding: bytes, as: UTF8.self)) }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }

    static func get(port: Int, path: String) async throws -> String {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let done = loop.makePromise(of: String.self)
        let ch = try await ClientBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(done)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await ch.writeAndFlush(ch.allocator.buffer(string: "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
        let text = try await done.futureResult.get()
        return text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    }

    /// Unlabelled Prometheus series of serve's /metrics (name → value).
    static func metrics(port: Int) async -> [String: Double] {
        guard let text = try? await get(port: port, path: "/metrics") else { return [:] }
        var out: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let v = Double(parts[1]) { out[String(parts[0])] = v }
        }
        return out
    }
}
