// TUIO 1.1/2.0 touches over UDP (swift-nio DatagramBootstrap) into ContactUpdates.
import MTKTangibles
import NIOCore
import NIOPosix
import Synchronization

/// Listens for TUIO bundles on a UDP port (default 3333) and decodes /tuio/2Dcur and /tuio2/ptr.
public final class UDPTUIOSource: InputSource {
    public let host: String
    public let port: Int
    private let decoder: Mutex<TUIODecoder>
    private let channel = Mutex<(any Channel)?>(nil)

    public init(host: String = "0.0.0.0", port: Int = 3333, surfaceSize: Vec2) {
        self.host = host; self.port = port
        decoder = Mutex(TUIODecoder(surfaceSize: surfaceSize))
    }

    public var name: String { "tuio:\(host):\(port)" }
    public var badInput: BadInputLog { decoder.withLock { $0.bad } }
    public var framesAccepted: Int { decoder.withLock { $0.framesAccepted } }
    public var framesDropped: Int { decoder.withLock { $0.framesDropped } }

    /// Binds and returns the bound port (useful with port 0).
    public func bind(sink: @escaping @Sendable ([ContactUpdate]) -> Void) async throws -> Int {
        let ch = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            // Whole datagrams: NIO's default 2 KiB receive buffer would cut large frames short.
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 65_536))
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DatagramHandler { bytes, sender in
                        let arrival = PosixClock.now()
                        var out: [ContactUpdate] = []
                        self.decoder.withLock { $0.feed(datagram: bytes, sender: sender, arrival: arrival, into: &out) }
                        if !out.isEmpty { sink(out) }
                    })
                }
            }
            .bind(host: host, port: port).get()
        channel.withLock { $0 = ch }
        return ch.localAddress?.port ?? port
    }

    public func run(sink: @escaping @Sendable ([ContactUpdate]) -> Void) async throws {
        _ = try await bind(sink: sink)
        try await waitUntilCancelled()
    }

    public func close() async {
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
final class DatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let onDatagram: ([UInt8], String) -> Void
    init(_ onDatagram: @escaping ([UInt8], String) -> Void) { self.onDatagram = onDatagram }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let env = unwrapInboundIn(data)
        let sender = "\(env.remoteAddress.ipAddress ?? "?"):\(env.remoteAddress.port ?? 0)"
        onDatagram(Array(env.data.readableBytesView), sender)
    }
}
