// JSON touches in over TCP (the MTK feed: a stream of JSON documents) or UDP (one document per datagram).
import Foundation
import MTKTangibles
import NIOCore
import NIOPosix
import Synchronization
import PercSystem

/// A TCP server (`.tcp`) or UDP listener (`.udp`) for JSON touch messages, decoded by
/// `JSONContactDecoder` (one decoder per connection or sender, so contact ids of different
/// forwarders never mix).
public final class JSONInputSource: InputSource {
    public enum Transport: String, Sendable { case tcp, udp }

    public let transport: Transport
    public let host: String
    public let port: Int
    public let surfaceSize: Vec2?
    let unitScale: Double
    private let decoders = Mutex<[String: Sender]>([:])
    /// One connection's or UDP sender's decoder, and when it last sent.
    private struct Sender {
        var decoder: JSONContactDecoder
        var lastSeen: Seconds
    }
    /// Senders known at once: a connection is forgotten when it closes, a UDP sender (no
    /// connection to close) when this many others sent after it (docs/security.md).
    static let maxSenders = 64
    private let problems = Mutex(BadInputLog())
    private let channel = Mutex<(any Channel)?>(nil)

    public init(transport: Transport, host: String = "127.0.0.1", port: Int, surfaceSize: Vec2?, unitScale: Double = 1) {
        self.transport = transport; self.host = host; self.port = port
        self.surfaceSize = surfaceSize; self.unitScale = unitScale
    }

    public var name: String { "json-\(transport.rawValue):\(host):\(port)" }

    public var badInput: BadInputLog {
        var all = problems.withLock { $0 }
        for d in decoders.withLock({ Array($0.values) }) { all.merge(d.decoder.bad) }
        return all
    }

    func decode(_ doc: [UInt8], from sender: String, sink: @Sendable ([ContactUpdate]) -> Void) {
        let arrival = MonotonicClock.now()
        var out: [ContactUpdate] = []
        var evicted: Sender?
        decoders.withLock { all in
            if all[sender] == nil, all.count >= Self.maxSenders, let oldest = all.min(by: { $0.value.lastSeen < $1.value.lastSeen }) {
                evicted = all.removeValue(forKey: oldest.key)
            }
            var s = all[sender] ?? Sender(decoder: JSONContactDecoder(origin: InputOrigin(kind: .json, device: sender),
                                                                      surfaceSize: surfaceSize, unitScale: unitScale), lastSeen: arrival)
            s.decoder.decode(Data(doc), arrival: arrival, into: &out)
            s.lastSeen = arrival
            all[sender] = s
        }
        if var gone = evicted {
            problems.withLock {
                $0.merge(gone.decoder.bad)
                $0.record("too many JSON senders", at: sender, "\(Self.maxSenders) known; the longest silent one (\(gone.decoder.origin.device)) was forgotten")
            }
            out = gone.decoder.endAll(at: arrival) + out
        }
        if !out.isEmpty { sink(out) }
    }

    /// A connection closed: its contacts end where they were, and its decoder goes (its bad
    /// input stays counted).
    func senderGone(_ sender: String, sink: @Sendable ([ContactUpdate]) -> Void) {
        guard var gone = decoders.withLock({ $0.removeValue(forKey: sender) }) else { return }
        problems.withLock { $0.merge(gone.decoder.bad) }
        let ended = gone.decoder.endAll(at: MonotonicClock.now())
        if !ended.isEmpty { sink(ended) }
    }

    func framingProblem(_ p: JSONStreamFramer.Problem, from sender: String) {
        problems.withLock { log in
            switch p {
            case .tooLong(let n): log.record("JSON document too long", at: sender, "\(n) bytes")
            case .garbage(let b): log.record("bytes outside a JSON document", at: sender, "byte 0x\(String(b, radix: 16))")
            }
        }
    }

    /// Binds and returns the bound port (useful with port 0).
    public func bind(sink: @escaping @Sendable ([ContactUpdate]) -> Void) async throws -> Int {
        let group = InputEventLoop.group
        let ch: any Channel
        switch transport {
        case .udp:
            ch = try await DatagramBootstrap(group: group)
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                // Whole datagrams: NIO's default 2 KiB receive buffer would cut large frames short.
                .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 65_536))
                .channelInitializer { [self] channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(DatagramHandler { bytes, sender, _ in
                            self.decode(bytes, from: sender, sink: sink)
                        })
                    }
                }
                .bind(host: host, port: port).get()
        case .tcp:
            ch = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { [self] channel in
                    let peer = "\(channel.remoteAddress?.ipAddress ?? "?"):\(channel.remoteAddress?.port ?? 0)"
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(StreamHandler(onDocuments: { bytes in
                            // One framer per connection, confined to its event loop.
                            for p in bytes.problems { self.framingProblem(p, from: peer) }
                            for d in bytes.documents { self.decode(d, from: peer, sink: sink) }
                        }, onClose: { self.senderGone(peer, sink: sink) }))
                    }
                }
                .bind(host: host, port: port).get()
        }
        channel.withLock { $0 = ch }
        return ch.localAddress?.port ?? port
    }

    public func run(sink: @escaping @Sendable ([ContactUpdate]) -> Void) async throws {
        _ = try await bind(sink: sink)
        let ch = channel.withLock { $0 }
        await withTaskCancellationHandler {
            try? await ch?.closeFuture.get()
        } onCancel: {
            ch?.close(promise: nil)
        }
    }

    public func close() async {
        let ch = channel.withLock { c -> (any Channel)? in defer { c = nil }; return c }
        try? await ch?.close()
    }
}

/// Frames one TCP connection's bytes into JSON documents.
final class StreamHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private var framer = JSONStreamFramer()
    let onDocuments: ((documents: [[UInt8]], problems: [JSONStreamFramer.Problem])) -> Void
    let onClose: () -> Void
    init(onDocuments: @escaping ((documents: [[UInt8]], problems: [JSONStreamFramer.Problem])) -> Void, onClose: @escaping () -> Void) {
        self.onDocuments = onDocuments; self.onClose = onClose
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buf = unwrapInboundIn(data)
        onDocuments(framer.append(buf.readableBytesView))
    }

    func channelInactive(context: ChannelHandlerContext) {
        onClose()
        context.fireChannelInactive()
    }
}
