// Answers a refused WebSocket upgrade with 403 (foreign Origin or Host) or 401 (no token)
// before the upgrade handler sees it (docs/security.md).
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// hummingbird-websocket answers every upgrade its router declines with an empty
/// `400 Bad Request`, which tells a browser page or its author nothing. This child channel
/// is Hummingbird's HTTP/1 + WebSocket channel with one handler more, right after the HTTP
/// request decoder: it looks at the connection's first request, and when that is an upgrade
/// the guard or the token refuses, it answers with the status and a line saying why and
/// closes. Anything else passes untouched and the handler leaves the pipeline (only the
/// first request of a connection can be upgraded, so nothing after it needs a look).
struct GatedUpgradeChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value
    let inner: HTTP1WebSocketUpgradeChannel
    let decide: @Sendable (HTTPRequestHead) -> UpgradeGate.Answer?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(UpgradeGate(decide: decide), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async { await inner.handle(value: value, logger: logger) }
}

/// See `GatedUpgradeChannel`.
final class UpgradeGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    struct Answer: Sendable {
        var status: HTTPResponseStatus
        var text: String
    }

    private let decide: @Sendable (HTTPRequestHead) -> Answer?
    private var refused = false

    init(decide: @escaping @Sendable (HTTPRequestHead) -> Answer?) { self.decide = decide }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }  // the rest of a refused request
        guard case .head(let head) = unwrapInboundIn(data), head.headers.contains(name: "upgrade"),
              let answer = decide(head) else {
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        refused = true
        var headers = HTTPHeaders([("Content-Type", "text/plain; charset=utf-8"), ("Connection", "close")])
        headers.add(name: "Content-Length", value: "\(answer.text.utf8.count)")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: answer.text)))), promise: nil)
        // The upgrade handler behind waits for a request that will not come: telling it the
        // input is closed makes it close the connection and end quietly (a plain close would
        // make Hummingbird log an error for every refused page).
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            bound.value.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        }
    }
}
