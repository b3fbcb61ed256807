// Fans frames and overlays out to every connected app and routes app messages to the service.
import Foundation
import MTKTangibles
import Synchronization
import PercSystem
import PercRuntime

/// Receives validated app messages (the pipeline implements it). Returns an error to send
/// back to that app, or nil.
public protocol AppMessageSink: Sendable {
    /// `raw` is the message as received (the contacts decoder keeps per-client state).
    func appSent(_ message: AppInbound, raw: Data, from client: AppClient, at arrival: Seconds) -> AppProtocolError?
    /// The app went away: drop what was kept for it.
    func appDisconnected(_ client: AppClient)
}

extension AppMessageSink {
    func appDisconnected(_ client: AppClient) {}
}

/// The WebSocket side of the service: encodes each frame once and offers it to every
/// client's latest-wins mailbox, so the cost for the pipeline is one encode plus a lock per
/// client, whatever the clients do.
public final class AppHub: Sendable {
    public struct Context: Sendable {
        public var service: String
        public var surface: AppWire.SurfaceInfo
        public var frameRateHz: Double
        public var acceptsContacts: Bool

        public init(service: String, surface: AppWire.SurfaceInfo, frameRateHz: Double, acceptsContacts: Bool) {
            self.service = service; self.surface = surface; self.frameRateHz = frameRateHz; self.acceptsContacts = acceptsContacts
        }
    }

    private let clients = Mutex<[Int: AppClient]>([:])
    private let nextID = Atomic<Int>(1)
    /// The latest frame is kept as a snapshot and encoded only when someone asks for it: a
    /// service with no app connected spends nothing on JSON.
    private let state: Mutex<(tangibles: [AppWire.TangibleInfo], lastFrame: SurfaceSnapshot?, lastOverlay: String?)>
    let context: Context
    let clock: @Sendable () -> Seconds
    let sink: Mutex<(any AppMessageSink)?> = Mutex(nil)
    let maxMessageBytes: Int
    /// Counts frames a slow client never got (replaced by a newer one).
    let onDropped: (@Sendable (Int) -> Void)?
    /// Counts presented reports from a fallback drawer that was standing by.
    let onIgnoredPresented: (@Sendable () -> Void)?
    private let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return e
    }()

    public init(context: Context, tangibles: [TangibleDefinition], maxMessageBytes: Int,
         clock: @escaping @Sendable () -> Seconds, onDropped: (@Sendable (Int) -> Void)? = nil,
         onIgnoredPresented: (@Sendable () -> Void)? = nil) {
        self.context = context
        self.onDropped = onDropped
        self.onIgnoredPresented = onIgnoredPresented
        self.clock = clock
        self.maxMessageBytes = maxMessageBytes
        self.state = Mutex((tangibles.map(AppWire.TangibleInfo.init), nil, nil))
    }

    var latestFrame: String? { state.withLock { $0.lastFrame }.map { AppFrameJSON.encode($0) } }
    /// Where the web server listens (`http://HOST:PORT/`, the real port when `http.bind`
    /// gave port 0), once it does: for `percbridge status` and the control API's `Status`.
    public var listening: String? { address.withLock { $0 } }
    private let address = Mutex<String?>(nil)
    func setListening(host: String, port: Int) {
        let h = host.contains(":") ? "[\(host)]" : host
        address.withLock { $0 = "http://\(h):\(port)/" }
    }
    public var clientCount: Int { clients.withLock { $0.count } }
    var connectedClients: [AppClient] { clients.withLock { Array($0.values) } }
    var overlayDrawingClients: Int { clients.withLock { $0.values.filter(\.drawsOverlay).count } }
    private let drawingObserver = CallbackSlot<Bool>()

    /// Calls `observer` now and whenever an app that draws the overlay (`hello` with
    /// `draws_overlay`) comes or the last one goes: true while at least one is connected.
    public func observeDrawing(_ observer: @escaping @Sendable (Bool) -> Void) {
        drawingObserver.set(observer)
        observer(overlayDrawingClients > 0)
    }

    private func drawingMayHaveChanged() {
        assignDrawers()
        let drawing = overlayDrawingClients > 0
        drawingObserver(drawing)
    }

    /// Who draws the overlay. Every app that draws of its own accord (`draws_overlay` without
    /// `overlay_fallback`) does: it knows its own screen. Only while there is none does a
    /// fallback drawer (`percbridge overlay`) draw, and then only the longest-connected one;
    /// the others stand by. So one screen never shows an overlay twice, and one overlay never
    /// gets presented reports from both an app and the fallback. Each fallback drawer is told
    /// its role (`drawing`) after its hello and whenever it changes.
    private func assignDrawers() {
        let all = clients.withLock { $0.values.sorted { $0.id < $1.id } }
        let apps = all.filter { $0.drawsOverlay && !$0.overlayFallback }
        let fallbacks = all.filter(\.overlayFallback)
        let chosen = apps.isEmpty ? fallbacks.first : nil
        for f in fallbacks {
            let draws = f === chosen
            guard f.assign(draws ? .draws : .standsBy) else { continue }
            let by = draws ? nil : (apps.first ?? chosen).map { $0.name ?? "app \($0.id)" }
            f.send(encode(AppWire.Drawing(draws: draws, by: by)))
            if draws, let overlay = state.withLock({ $0.lastOverlay }) { f.offerOverlay(overlay) }
        }
    }

    public func setSink(_ s: any AppMessageSink) { sink.withLock { $0 = s } }

    func encode<T: Encodable>(_ value: T) -> String {
        // Encoding our own value types cannot fail; an empty object keeps clients alive if it did.
        (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "{}"
    }

    /// Registers a new connection and queues its `hello` (and the latest state, so a new
    /// viewer draws at once).
    func connect(remote: String) -> AppClient { connect(remote: remote, limit: .max)! }

    /// As `connect(remote:)`, but nil (and nothing registered) when `limit` apps are connected.
    func connect(remote: String, limit: Int) -> AppClient? {
        // Full: refuse before encoding a hello for an app that will not get it.
        guard clients.withLock({ $0.count < limit }) else { return nil }
        let client = AppClient(id: nextID.wrappingAdd(1, ordering: .relaxed).oldValue, remote: remote)
        let (tangibles, frame, overlay) = state.withLock { ($0.tangibles, $0.lastFrame, $0.lastOverlay) }
        client.send(encode(AppWire.Hello(service: context.service, surface: context.surface, tangibles: tangibles,
                                         frame_rate_hz: context.frameRateHz, time: clock(),
                                         accepts: ["hello", "presented", "ping", "actuate"] + (context.acceptsContacts ? ["contacts"] : []))))
        if let overlay { client.offerOverlay(overlay) }
        if let frame { client.offerFrame(AppFrameJSON.encode(frame)) }
        let admitted = clients.withLock { c -> Bool in
            guard c.count < limit else { return false }
            c[client.id] = client
            return true
        }
        return admitted ? client : nil
    }

    func disconnect(_ client: AppClient) {
        client.close()
        let removed = clients.withLock { $0.removeValue(forKey: client.id) }
        sink.withLock { $0 }?.appDisconnected(client)
        if removed?.drawsOverlay == true { drawingMayHaveChanged() }
    }

    /// The registry changed: new connections get the new definitions in `hello`.
    public func updateTangibles(_ definitions: [TangibleDefinition]) {
        state.withLock { $0.tangibles = definitions.map(AppWire.TangibleInfo.init) }
    }

    func publish(_ snapshot: SurfaceSnapshot) {
        state.withLock { $0.lastFrame = snapshot }
        let clients = connectedClients
        guard !clients.isEmpty else { return }
        let json = AppFrameJSON.encode(snapshot)
        var dropped = 0
        // One encoding per look-ahead asked for (at most AppLookahead.maxMS + 1 of them).
        var predicted: [Int: String] = [:]
        for c in clients {
            let ahead = c.lookaheadMS
            let message: String
            if ahead == 0 || snapshot.tangibles.allSatisfy({ $0.pose == nil }) { message = json } else if let m = predicted[ahead] { message = m } else {
                message = AppFrameJSON.encode(snapshot, aheadMS: ahead)
                predicted[ahead] = message
            }
            if c.offerFrame(message) { dropped += 1 }
        }
        if dropped > 0 { onDropped?(dropped) }
    }

    func publish(_ overlay: Overlay, frame: UInt64, time: Seconds) {
        let json = encode(AppWire.OverlayMessage(overlay, frame: frame, time: time))
        state.withLock { $0.lastOverlay = json }
        for c in connectedClients { c.offerOverlay(json) }
    }

    /// Handles one text message from `client`: validates, answers ping itself, passes the rest on.
    func received(_ data: Data, from client: AppClient) {
        let arrival = clock()
        guard data.count <= maxMessageBytes else {
            reject(AppProtocolError(code: .oversized, message: "message of \(data.count) bytes is over the limit of \(maxMessageBytes)"), to: client)
            return
        }
        let surface = Vec2(context.surface.width_mm, context.surface.height_mm)
        switch AppInbound.decode(data, surface: surface) {
        case .failure(let e):
            reject(e, to: client)
        case .success(let message):
            switch message {
            case .ping(let id, let appTime):
                client.send(encode(AppWire.Pong(id: id, app_time: appTime, time: clock())))
            case .hello(let name, _, let draws, let fallback):
                switch AppLookahead.decode(data) {
                case .failure(let e): reject(e, to: client); return
                case .success(let ms): client.setLookahead(ms: ms)
                }
                client.identify(name: name, drawsOverlay: draws, overlayFallback: fallback)
                drawingMayHaveChanged()
                _ = sink.withLock { $0 }?.appSent(message, raw: data, from: client, at: arrival)
            case .presented where client.standingBy:
                // A fallback drawer standing by (an app draws): its report is not about what is
                // on the screen the light checks use. Counted, never an error to the app.
                onIgnoredPresented?()
            case .contacts where !context.acceptsContacts:
                reject(AppProtocolError(code: .unavailable, message: "this service does not accept contacts (http.accept_contacts = false)", inReplyTo: "contacts"), to: client)
            default:
                if let e = sink.withLock({ $0 })?.appSent(message, raw: data, from: client, at: arrival) { reject(e, to: client) }
            }
        }
    }

    func reject(_ error: AppProtocolError, to client: AppClient) {
        client.send(encode(error.wire))
    }
}

extension AppHub: FrameOutput {
    public func publish(_ result: FrameResult) {
        if let o = result.overlay { publish(o, frame: result.snapshot.frame, time: result.snapshot.time) }
        publish(result.snapshot)
    }
}
