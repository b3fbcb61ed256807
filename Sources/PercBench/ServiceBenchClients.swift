// `bench service`: app-protocol WebSocket clients on raw NIO TCP — readers that time each frame, and one that never reads.
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

    /// Connects `readers` reading clients and, if `stalled`, one that never reads.
    static func connect(port: Int, readers: Int, stalled: Bool) async throws -> BenchWSClients {
        let clients = BenchWSClients()
        for i in 0..<readers {
            let ch = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(BenchWSReader(port: port) { event in
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
        case .pointers: break
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
    enum Event { case upgraded, closed, frame(time: Seconds, received: Seconds), pointers(received: Seconds, positions: [Vec2]) }

    private let port: Int
    private let decodePointers: Bool
    private let onEvent: (Event) -> Void
    private var buffer = ByteBuffer()
    private var upgraded = false

    /// With `decodePointers`, each `frame` is also decoded and its pointers' positions reported.
    init(port: Int, decodePointers: Bool = false, onEvent: @escaping (Event) -> Void) {
        self.port = port; self.decodePointers = decodePointers; self.onEvent = onEvent
    }

    private struct PointerFrame: Decodable {
        struct Pointer: Decodable { var x: Double; var y: Double }
        var pointers: [Pointer]?
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
            onEvent(.upgraded)
        }
        while let (opcode, payload) = nextFrame() {
            if opcode == 8 { context.close(promise: nil); return }
            if opcode == 1, let t = Self.frameTime(payload) {
                onEvent(.frame(time: t, received: received))
                if decodePointers, let f = try? JSONDecoder().decode(PointerFrame.self, from: Data(payload)) {
                    onEvent(.pointers(received: received, positions: (f.pointers ?? []).map { Vec2($0.x, $0.y) }))
                }
            }
        }
        buffer.discardReadBytes()
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
