// The HTTP side of the service: web viewer, WebSocket app protocol at /ws, /metrics.
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the Hummingbird application. Routes: `/` (web viewer), `/viewer.js`, `/percbridge.js`
/// (the JavaScript client, clients/js), `/ws` (app
/// protocol, docs/app-protocol.md), `/metrics` (Prometheus), `/api/state` (latest frame).
enum WebServer {
    /// A single WebSocket frame above this closes the connection (1009); messages between
    /// `AppHub.maxMessageBytes` and this get an `error` and the connection stays.
    static let maxFrameBytes = 1 << 20
    /// Served without the token: code, no data.
    static let publicPaths: Set<String> = ["/percbridge.js", "/viewer.js"]

    static func make(bind: HostPort, token: String, hub: AppHub, metrics: ServiceMetrics, logger: Logger,
                     diagnostics: LiveDiagnostics? = nil,
                     onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some Service {
        let access = AccessToken(token: token)
        let router = Router()
        router.add(middleware: TokenMiddleware(access: access))
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
            _ = diagnostics?.report()  // sets the diagnosis gauges
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                            body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
        router.get("/api/state") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: .init(byteBuffer: ByteBuffer(string: hub.latestFrame ?? "{}")))
        }
        if let diagnostics { DiagnosticsRoutes.register(on: router, diagnostics) }

        let wsRouter = Router(context: BasicWebSocketRequestContext.self)
        wsRouter.ws("/ws") { request, _ in
            access.allows(request) ? .upgrade([:]) : .dontUpgrade
        } onUpgrade: { inbound, outbound, _ in
            let client = hub.connect(remote: "ws")
            metrics.appClients.record(hub.clientCount)
            logger.info("app connected", metadata: ["client": "\(client.id)"])
            defer {
                hub.disconnect(client)
                metrics.appClients.record(hub.clientCount)
                logger.info("app disconnected", metadata: ["client": "\(client.id)", "dropped_frames": "\(client.dropped)"])
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    while let batch = await client.next() {
                        for message in batch { try await outbound.write(.text(message)) }
                    }
                }
                var reader = AppMessageAssembler(limit: hub.maxMessageBytes)
                for try await frame in inbound {
                    switch reader.add(frame) {
                    case .none: break
                    case .message(let data): hub.received(data, from: client)
                    case .error(let e): hub.reject(e, to: client)
                    }
                }
                client.close()
                group.cancelAll()
            }
        }

        var wsConfig = WebSocketServerConfiguration()
        wsConfig.maxFrameSize = maxFrameBytes
        let address: BindAddress = .hostname(bind.host, port: bind.port)
        return Application(
            router: router,
            server: .http1WebSocketUpgrade(webSocketRouter: wsRouter,
                                           configuration: .init(ws: wsConfig)),
            configuration: .init(address: address, serverName: "percbridge"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? bind.port
                hub.setListening(host: bind.host, port: port)
                await onRunning(port)
            },
            logger: logger
        )
    }
}

/// Refuses requests without the access token (when one is configured).
struct TokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: AccessToken
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The client code itself is public (an app page loads it before it knows a token).
        guard access.allows(request) || WebServer.publicPaths.contains(request.uri.path) else {
            return Response(status: .unauthorized, headers: [.contentType: "text/plain"],
                            body: .init(byteBuffer: ByteBuffer(string: "percbridge: this address needs ?token=... or Authorization: Bearer ...\n")))
        }
        return try await next(request, context)
    }
}
