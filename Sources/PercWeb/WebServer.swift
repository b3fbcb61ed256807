// The HTTP side of the service: web viewer, WebSocket app protocol at /ws, /metrics.
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import PercSystem
import PercInput
import PercRuntime

/// Builds the Hummingbird application. Routes: `/` (web viewer), `/viewer.js`, `/percbridge.js`
/// (the JavaScript client, clients/js), `/ws` (app
/// protocol, docs/app-protocol.md), `/metrics` (Prometheus), `/api/state` (latest frame).
public enum WebServer {
    /// A single WebSocket frame above this closes the connection (1009); messages between
    /// `AppHub.maxMessageBytes` and this get an `error` and the connection stays.
    static let maxFrameBytes = 1 << 20
    /// Served without the token: code, no data.
    static let publicPaths: Set<String> = ["/percbridge.js", "/viewer.js"]

    public static func make(bind: HostPort, token: String, hub: AppHub, metrics: ServiceMetrics, logger: Logger,
                     diagnostics: (any DiagnosticsSource)? = nil, allowedOrigins: [String] = [], maxApps: Int = 64,
                     maxConnections: Int = 1024, pingInterval: Int = 30,
                     onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some Service {
        let access = AccessToken(token: token)
        // The descriptor limit must not bite before max_connections does (a shell's is 1024).
        let files = FileLimit.raise(toAtLeast: maxConnections + 256)
        if files < maxConnections + 64 {
            logger.warning("only \(files) open files are allowed (ulimit -n); http.max_connections = \(maxConnections) cannot be reached: lower it or raise LimitNOFILE")
        }
        let guardian = RequestGuard(allowedOrigins: allowedOrigins, bindIsLoopback: bind.isLoopback)
        if guardian.allowedOrigins.contains("*") {
            logger.warning("http.allowed_origins has \"*\": every web page a browser on this computer opens may read the tangibles, send touches and actuate PERCs (docs/security.md)")
        } else if guardian.allowedOrigins.contains("null") {
            logger.notice("http.allowed_origins has \"null\": pages opened from disk, and sandboxed frames of any site, may use /ws (docs/security.md)")
        }
        let refusals = RefusalLog(logger: logger, metrics: metrics)
        WebEventLoop.watchLoad(logger: logger)
        let router = Router()
        // Origin and Host first (403), then the token (401); both cover every route.
        router.add(middleware: GuardMiddleware(guardian: guardian, log: refusals))
        router.add(middleware: TokenMiddleware(access: access))
        // Reached when /ws was not upgraded: a refused Origin/Host or token is answered by the
        // middleware above; what is left is a plain GET.
        router.get("/ws") { _, _ in
            Response(status: .badRequest, headers: [.contentType: "text/plain"],
                     body: .init(byteBuffer: ByteBuffer(string: "percbridge: /ws is the WebSocket app protocol (docs/app-protocol.md)\n")))
        }
        router.get("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                     body: .init(byteBuffer: ByteBuffer(string: ViewerPage.html)))
        }
        // clients/js, embedded at build time (WebEmbedPlugin); percbridge.js is the app library.
        for name in ["viewer.js", "percbridge.js"] {
            router.get(RouterPath(name)) { _, _ in
                // Any page may import the client (`import … from "http://table:8080/percbridge.js"`).
                Response(status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-store",
                                                .accessControlAllowOrigin: "*"],
                         body: .init(byteBuffer: WebFiles.named(name) ?? ByteBuffer()))
            }
        }
        router.get("/metrics") { _, _ in
            metrics.appClients.record(hub.clientCount)
            metrics.heapInUse.record(HeapUsage.bytesInUse())
            _ = diagnostics?.reportForWeb()  // sets the diagnosis gauges
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                            body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
        router.get("/api/state") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: .init(byteBuffer: ByteBuffer(string: hub.latestFrame ?? "{}")))
        }
        if let diagnostics { DiagnosticsRoutes.register(on: router, diagnostics) }

        let address: BindAddress = .hostname(bind.host, port: bind.port)
        return Application(
            router: router,
            server: HTTPServerBuilder { responder in
                // A refused upgrade is answered 403/401 with the reason (UpgradeGate), not 400.
                GatedUpgradeChannel(
                    inner: appChannel(responder: responder, pingInterval: pingInterval, guardian: guardian, access: access,
                                      hub: hub, metrics: metrics, refusals: refusals, maxApps: maxApps, logger: logger),
                    decide: { head in
                        if let r = guardian.check(host: head.headers.first(name: "host"), origin: head.headers.first(name: "origin")) {
                            refusals.refused(r, path: String(head.uri.prefix { $0 != "?" }))
                            return .init(status: .forbidden, text: r.message)
                        }
                        let query = URI(head.uri).queryParameters["token"].map(String.init)
                        guard access.allows(query: query, authorization: head.headers.first(name: "authorization")) else {
                            return .init(status: .unauthorized, text: TokenMiddleware<BasicRequestContext>.refusal)
                        }
                        return nil
                    })
            },
            configuration: .init(address: address, serverName: "percbridge",
                                 availableConnectionsDelegate: ConnectionLimit(maxConnections) { limit in
                                     metrics.inputDropped(reason: "max_connections")
                                     refusals.connectionsFull(limit)
                                 }),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? bind.port
                hub.setListening(host: bind.host, port: port)
                await onRunning(port)
            },
            eventLoopGroupProvider: .shared(WebEventLoop.group),
            logger: logger
        )
    }

    /// HTTP/1 with WebSocket upgrades of `/ws` to app sessions. Upgrades are decided by a
    /// closure, not hummingbird-websocket's router: its `router.ws` keeps each connection's
    /// request context in a reference cycle, about 740 bytes that are never freed per app that
    /// ever connected (2.8.1; the heap test in AppChurnTests). A ping every `pingInterval` s
    /// keeps dead apps from holding a slot; a closed app's pending ping timer is freed only at
    /// its deadline (Swift runtime), so a shorter interval also returns that memory sooner.
    private static func appChannel(responder: @escaping HTTPChannelHandler.Responder, pingInterval: Int, guardian: RequestGuard,
                                   access: AccessToken, hub: AppHub, metrics: ServiceMetrics, refusals: RefusalLog,
                                   maxApps: Int, logger: Logger) -> HTTP1WebSocketUpgradeChannel {
        var ws = WebSocketServerConfiguration()
        ws.maxFrameSize = maxFrameBytes
        ws.autoPing = .enabled(timePeriod: .seconds(Int64(pingInterval)))
        return HTTP1WebSocketUpgradeChannel(responder: responder, configuration: .init(ws: ws)) { head, _, _ in
            // Not upgraded: the HTTP router answers (the gate in front has already answered a
            // refused Origin/Host or token with 403/401; checked again so no path skips them).
            guard URI(head.path ?? "").path == "/ws", guardian.check(head) == nil, access.allows(head) else { return .dontUpgrade }
            return .upgrade([:]) { inbound, outbound, _ in
                try await serveApp(inbound: inbound, outbound: outbound, hub: hub, metrics: metrics, refusals: refusals,
                                   maxApps: maxApps, logger: logger)
            }
        }
    }

    /// One app's WebSocket session: admitted up to `maxApps`, its mailbox written out while
    /// its messages are read, and forgotten (contacts ended, heap trimmed) when it goes.
    private static func serveApp(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, hub: AppHub,
                                 metrics: ServiceMetrics, refusals: RefusalLog, maxApps: Int, logger: Logger) async throws {
        guard let client = hub.connect(remote: "ws", limit: maxApps) else {
            metrics.inputDropped(reason: "max_apps")
            refusals.tooManyApps(maxApps)
            try await outbound.close(.unknown(1013), reason: "percbridge: too many apps (http.max_apps = \(maxApps))")
            HeapTrim.appLeft(remaining: hub.clientCount)
            return
        }
        metrics.appClients.record(hub.clientCount)
        logger.info("app connected", metadata: ["client": "\(client.id)"])
        defer {
            hub.disconnect(client)
            metrics.appClients.record(hub.clientCount)
            HeapTrim.appLeft(remaining: hub.clientCount)
            logger.info("app disconnected", metadata: ["client": "\(client.id)", "dropped_frames": "\(client.dropped)"])
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            // On the web loop itself: one hop from the pipeline's offer to the socket (WebEventLoop).
            group.addTask(executorPreference: WebEventLoop.executor) {
                while let batch = await client.next() {
                    for message in batch { try await outbound.write(.text(message)) }
                }
            }
            // However reading ends (the app closed, its connection reset, a frame the WebSocket
            // layer refused, the server stopping), the writer must stop too: it may be waiting
            // for a frame that an idle table never makes, and the group waits for it.
            defer {
                client.close()
                group.cancelAll()
            }
            var reader = AppMessageAssembler(limit: hub.maxMessageBytes)
            for try await frame in inbound {
                switch reader.add(frame) {
                case .none: break
                case .message(let data): hub.received(data, from: client)
                case .error(let e): hub.reject(e, to: client)
                }
            }
        }
    }
}

/// Refuses requests without the access token (when one is configured).
struct TokenMiddleware<Context: RequestContext>: RouterMiddleware {
    static var refusal: String { "percbridge: this address needs ?token=... or Authorization: Bearer ...\n" }
    let access: AccessToken
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The client code itself is public (an app page loads it before it knows a token).
        guard access.allows(request) || WebServer.publicPaths.contains(request.uri.path) else {
            return Response(status: .unauthorized, headers: [.contentType: "text/plain"],
                            body: .init(byteBuffer: ByteBuffer(string: Self.refusal)))
        }
        return try await next(request, context)
    }
}
