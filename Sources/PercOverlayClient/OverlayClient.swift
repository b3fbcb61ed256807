// The overlay's connection to the service: WebSocket over swift-nio, reconnecting with back-off.
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// What draws: the X11 overlay (percbridge-overlay), or a test's recorder.
public protocol OverlayDisplay: Sendable {
    /// Latest wins; report `serial` (if not 0) through the client's `presented` once shown.
    func show(_ discs: [ScreenDisc], serial: UInt64)
}

/// Where the service listens: `ws://HOST:PORT/ws`, with the token if it needs one.
public struct ServiceEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var path: String
    public var token: String?

    public init(host: String, port: Int, path: String = "/ws", token: String? = nil) {
        self.host = host; self.port = port; self.path = path; self.token = token
    }

    /// Parses `ws://host:port/path`; nil (with the reason) for anything else.
    public static func parse(_ url: String, token: String? = nil) -> Result<ServiceEndpoint, MappingError> {
        guard let u = URLComponents(string: url), u.scheme == "ws",
              let host = u.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), !host.isEmpty else {
            return .failure(MappingError("\(url.prefix(80)) is not a ws://HOST:PORT/ws address (TLS is not spoken: the service listens on loopback or behind a proxy)"))
        }
        let path = u.path.isEmpty ? "/ws" : u.path
        let fromQuery = u.queryItems?.first(where: { $0.name == "token" })?.value
        return .success(ServiceEndpoint(host: host, port: u.port ?? 80, path: path, token: token ?? fromQuery))
    }

    public var description: String { "ws://\(host.contains(":") ? "[\(host)]" : host):\(port)\(path)" }
}

/// Doubles the wait after each failed attempt, from `first` up to `cap`; back to `first` once
/// a connection has lasted `stableAfter`.
public struct Backoff: Sendable, Equatable {
    public let first: Double, cap: Double
    public private(set) var next: Double
    public init(first: Double = 0.25, cap: Double = 8) { self.first = first; self.cap = cap; self.next = first }
    /// The wait before the next attempt; doubles the one after.
    public mutating func failed() -> Double { defer { next = min(cap, next * 2) }; return next }
    public mutating func succeeded() { next = first }
}

/// Runs the overlay's connection: connect, say hello, draw what the session says, report what
/// the display showed; on any loss clear the screen and reconnect with back-off. Ends only
/// when cancelled or on a fatal mismatch (returned).
public final class OverlayClient: Sendable {
    /// A single WebSocket message over this is refused by closing (the service's own limit is 1 MiB).
    static let maxMessageBytes = 1 << 20
    static let pingEvery: Double = 30

    private let endpoint: ServiceEndpoint
    private let display: any OverlayDisplay
    private let logger: Logger
    private let session: Mutex<OverlaySession>
    /// The current connection's outgoing messages (nil while not connected).
    private let outgoing = Mutex<AsyncStream<WebSocketFrame>.Continuation?>(nil)
    private let fatal = Mutex<String?>(nil)

    public init(endpoint: ServiceEndpoint, session: OverlaySession, display: any OverlayDisplay, logger: Logger) {
        self.endpoint = endpoint
        self.display = display
        self.logger = logger
        self.session = Mutex(session)
    }

    /// The display showed `serial` at `at` (CLOCK_MONOTONIC seconds). Any thread.
    public func presented(serial: UInt64, at: Double) {
        perform(session.withLock { $0.presented(serial: serial, at: at) })
    }

    /// Connects and reconnects until cancelled; returns the fatal reason if one stopped it.
    public func run() async -> String? {
        var backoff = Backoff()
        var failures = 0
        while !Task.isCancelled {
            let started = Self.now()
            do {
                try await connectOnce()
                failures = 0
            } catch {
                failures += 1
                // One line per streak, then every tenth: a service that is down for hours
                // does not fill the journal.
                if failures == 1 || failures % 10 == 0 {
                    logger.warning("cannot reach the service at \(endpoint): \(Self.describe(error)); retrying (attempt \(failures))")
                }
            }
            perform(session.withLock { $0.disconnected() })
            if let reason = fatal.withLock({ $0 }) { return reason }
            if Self.now() - started > 10 { backoff.succeeded() }
            let wait = backoff.failed()
            try? await Task.sleep(for: .seconds(wait))
        }
        return nil
    }

    private enum Upgrade { case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>), refused }

    private func connectOnce() async throws {
        let endpoint = self.endpoint
        let upgrade: EventLoopFuture<Upgrade> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(3))
            .connect(host: endpoint.host, port: endpoint.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: Self.maxMessageBytes) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            .websocket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                        }
                    }
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: endpoint.port == 80 ? endpoint.host : "\(endpoint.host):\(endpoint.port)")
                    if let token = endpoint.token { headers.add(name: "Authorization", value: "Bearer \(token)") }
                    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: endpoint.path, headers: headers)
                    let config = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { $0.eventLoop.makeCompletedFuture { .refused } })
                    // The service says hello as soon as the upgrade is done, so its first frames
                    // often come in the same read as the 101 response: NIO's default drops the
                    // bytes after the response head (swift-nio#741), and the overlay then never
                    // learnt the surface and drew nothing. They go on to the WebSocket decoder.
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: config)
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                }
            }
        switch try await upgrade.get() {
        case .refused:
            throw OverlayClientError("the service refused the WebSocket upgrade (a wrong token, or not a percbridge service at \(endpoint))")
        case .websocket(let channel):
            try await serve(channel)
        }
    }

    private func serve(_ channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>) async throws {
        let (stream, continuation) = AsyncStream<WebSocketFrame>.makeStream(bufferingPolicy: .bufferingNewest(64))
        outgoing.withLock { $0 = continuation }
        defer { outgoing.withLock { $0 = nil }; continuation.finish() }
        logger.info("connected to \(endpoint)")
        perform(session.withLock { $0.connected(now: Self.now()) })
        try await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await frame in stream { try await outbound.write(frame) }
                }
                group.addTask { [self] in
                    while true {
                        try await Task.sleep(for: .seconds(Self.pingEvery))
                        perform(session.withLock { $0.pingDue(now: Self.now()) })
                    }
                }
                group.addTask { [self] in
                    var message = ByteBuffer()
                    for try await frame in inbound {
                        switch frame.opcode {
                        case .text, .continuation:
                            var data = frame.unmaskedData
                            guard message.readableBytes + data.readableBytes <= Self.maxMessageBytes else {
                                throw OverlayClientError("the service sent a message over \(Self.maxMessageBytes) bytes")
                            }
                            message.writeBuffer(&data)
                            guard frame.fin else { continue }
                            let bytes = Data(message.readableBytesView)
                            message.clear()
                            received(bytes)
                        case .ping:
                            // One writer (the task above) for every frame, pongs included.
                            continuation.yield(Self.frame(.pong, frame.unmaskedData))
                        case .connectionClose:
                            return
                        default:
                            continue
                        }
                    }
                }
                // Whichever ends first (the service closed, a write failed) ends the connection.
                try await group.next()
                group.cancelAll()
            }
        }
    }

    private func received(_ data: Data) {
        guard let message = ServiceMessage.decode(data) else {
            logger.debug("ignored a message the overlay cannot read", metadata: ["bytes": "\(data.count)"])
            return
        }
        perform(session.withLock { $0.received(message, now: Self.now()) })
    }

    private func perform(_ actions: [OverlaySession.Action]) {
        for a in actions {
            switch a {
            case .send(let text):
                _ = outgoing.withLock { $0 }?.yield(Self.frame(.text, ByteBuffer(string: text)))
            case .show(let discs, let serial):
                display.show(discs, serial: serial)
            case .log(let line):
                logger.info("\(line)")
            case .fail(let reason):
                logger.error("\(reason)")
                fatal.withLock { $0 = reason }
                outgoing.withLock { $0 }?.finish()
            }
        }
    }

    /// Client frames are masked (RFC 6455 §5.3).
    private static func frame(_ opcode: WebSocketOpcode, _ data: ByteBuffer) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: data)
    }

    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? OverlayClientError { return e.description }
        if let e = error as? IOError { return e.description }
        return "\(error)"
    }
}

public struct OverlayClientError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
