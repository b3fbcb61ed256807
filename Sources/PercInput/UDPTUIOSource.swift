// TUIO 1.1/2.0 touches over UDP (swift-nio DatagramBootstrap) into ContactUpdates.
import Logging
import MTKTangibles
import NIOCore
import NIOPosix
import Synchronization
import PercSystem

/// Listens for TUIO bundles on a UDP port (default 3333) and decodes /tuio/2Dcur and /tuio2/ptr.
public final class UDPTUIOSource: InputSource {
    public let host: String
    public let port: Int
    private let decoder: Mutex<TUIODecoder>
    private let channel = Mutex<(any Channel)?>(nil)
    private let expiry = Mutex<RepeatedTask?>(nil)
    /// Canonical sender addresses accepted (empty: any).
    private let allowFrom: Set<String>
    private let drops: DropLog?

    /// `drops` gets what the bounds drop (metric and rate-limited log line); nil in tools
    /// that only print a summary.
    public init(host: String = "0.0.0.0", port: Int = 3333, surfaceSize: Vec2, limits: TUIOLimits = TUIOLimits(),
                drops: DropLog? = nil) {
        self.host = host; self.port = port
        decoder = Mutex(TUIODecoder(surfaceSize: surfaceSize, limits: limits))
        allowFrom = Set(limits.allowFrom.compactMap(HostPort.canonicalIP))
        self.drops = drops
    }

    public var name: String { "tuio:\(host):\(port)" }
    public var badInput: BadInputLog { decoder.withLock { $0.bad } }
    var framesAccepted: Int { decoder.withLock { $0.framesAccepted } }
    public var framesDropped: Int { decoder.withLock { $0.framesDropped } }

    /// Binds and returns the bound port (useful with port 0).
    public func bind(sink: @escaping @Sendable ([ContactUpdate]) -> Void) async throws -> Int {
        let ch = try await DatagramBootstrap(group: InputEventLoop.group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            // Whole datagrams: NIO's default 2 KiB receive buffer would cut large frames short.
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 65_536))
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DatagramHandler { bytes, sender, ip in
                        if !self.allowFrom.isEmpty, !self.allowFrom.contains(ip) {
                            self.drops?.dropped(["tuio_sender_not_allowed": 1], example: "sender \(sender) is not in allow_from")
                            return
                        }
                        let arrival = MonotonicClock.now()
                        var out: [ContactUpdate] = []
                        let dropped = self.decoder.withLock { d in
                            d.feed(datagram: bytes, sender: sender, arrival: arrival, into: &out)
                            return d.takeDrops()
                        }
                        if !dropped.isEmpty { self.drops?.dropped(dropped, example: self.name) }
                        if !out.isEmpty { sink(out) }
                    })
                }
            }
            .bind(host: host, port: port).get()
        channel.withLock { $0 = ch }
        // Silent sources are found by a timer: their silence is the event.
        let timeout = decoder.withLock { $0.limits.sourceTimeout }
        let period = TimeAmount.nanoseconds(Int64(min(0.25, timeout / 4) * 1e9))
        let task = ch.eventLoop.scheduleRepeatedTask(initialDelay: period, delay: period) { [self] _ in
            var out: [ContactUpdate] = []
            let now = MonotonicClock.now()
            let dropped = decoder.withLock { d in
                d.expire(now: now, into: &out)
                return d.takeDrops()
            }
            if !dropped.isEmpty { drops?.dropped(dropped, example: name) }
            if !out.isEmpty { sink(out) }
        }
        expiry.withLock { $0 = task }
        return ch.localAddress?.port ?? port
    }

    public func run(sink: @escaping @Sendable ([ContactUpdate]) -> Void) async throws {
        _ = try await bind(sink: sink)
        try await waitUntilCancelled()
    }

    public func close() async {
        expiry.withLock { $0?.cancel(); $0 = nil }
        let ch = channel.withLock { c -> (any Channel)? in defer { c = nil }; return c }
        try? await ch?.close()
    }

    func waitUntilCancelled() async throws {
        let ch = channel.withLock { $0 }
        await withTaskCancellationHandler {
            try? await ch?.closeFuture.get()
        } onCancel: {
            ch?.close(promise: nil)
        }
    }
}

/// Hands each datagram's bytes and sender ("host:port") to a closure.
public final class DatagramHandler: ChannelInboundHandler {
    public typealias InboundIn = AddressedEnvelope<ByteBuffer>
    /// Bytes, "host:port", host.
    let onDatagram: ([UInt8], String, String) -> Void
    public init(_ onDatagram: @escaping ([UInt8], String, String) -> Void) { self.onDatagram = onDatagram }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let env = unwrapInboundIn(data)
        let ip = env.remoteAddress.ipAddress ?? "?"
        let sender = "\(ip):\(env.remoteAddress.port ?? 0)"
        onDatagram(Array(env.data.readableBytesView), sender, ip)
    }
}
