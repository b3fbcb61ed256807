// Refuses HTTP requests and WebSocket upgrades from foreign web pages (Origin) and from
// rebound DNS names (Host), before the access token is looked at (docs/security.md).
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import PercInput
import PercRuntime

/// A browser lets any page open `ws://127.0.0.1:8080/ws` and, after DNS rebinding, fetch
/// `http://evil.example:8080/`; both carry headers the page cannot forge: `Origin` (the page's
/// origin) and `Host` (the name the browser resolved). Native apps send no Origin and stay
/// allowed.
struct RequestGuard: Sendable {
    /// Origins allowed besides the page's own (`http.allowed_origins`), lower-cased, no
    /// trailing slash; "*" allows every origin.
    let allowedOrigins: Set<String>
    /// For a loopback bind only loopback names are accepted in `Host`; other binds are
    /// reached under names we cannot know (the token protects them).
    let loopbackOnly: Bool

    init(allowedOrigins: [String], bindIsLoopback: Bool) {
        self.allowedOrigins = Set(allowedOrigins.map(Self.normalise))
        loopbackOnly = bindIsLoopback
    }

    enum Refusal: Sendable, Equatable {
        case host(String)
        case origin(String)
        var reason: String {
            switch self {
            case .host: "host"
            case .origin: "origin"
            }
        }
        var message: String {
            switch self {
            case .host(let h): "percbridge: Host \(InputText.clip(h)) is not a loopback name; this service is bound to loopback\n"
            case .origin(let o): "percbridge: pages from \(InputText.clip(o)) may not use this service (add the origin to http.allowed_origins)\n"
            }
        }
    }

    /// nil: allowed. `host` and `origin` are the raw header values (nil when absent). A
    /// `publicFile` (the JavaScript clients, served to any page with CORS `*`) holds nothing a
    /// page could misuse, so only its Host is checked.
    func check(host: String?, origin: String?, publicFile: Bool = false) -> Refusal? {
        if loopbackOnly, let host, !Self.isLoopbackHost(host) { return .host(host) }
        guard let origin, !publicFile else { return nil }
        let o = Self.normalise(origin)
        if allowedOrigins.contains("*") || allowedOrigins.contains(o) { return nil }
        // Same origin as the page we served: the browser shows the Host it asked for.
        if let host, o == "http://" + host.lowercased() { return nil }
        return .origin(origin)
    }

    func check(_ request: Request) -> Refusal? { check(request.head) }

    func check(_ head: HTTPRequest) -> Refusal? {
        // HTTP/1 `Host` arrives as the request's authority (swift-http-types moves it there).
        check(host: head.authority, origin: head.headerFields[.origin],
              publicFile: WebServer.publicPaths.contains(URI(head.path ?? "").path))
    }

    static func normalise(_ origin: String) -> String {
        var o = origin.trimmingCharacters(in: .whitespaces).lowercased()
        while o.hasSuffix("/") { o.removeLast() }
        // An explicit default port names the same origin.
        if o.hasPrefix("http://"), o.hasSuffix(":80") { o.removeLast(3) }
        return o
    }

    /// `localhost`, `*.localhost`, 127.0.0.0/8 and `[::1]`, with or without a port.
    static func isLoopbackHost(_ value: String) -> Bool {
        var h = value.lowercased()
        if h.hasPrefix("[") {
            guard let close = h.firstIndex(of: "]") else { return false }
            let rest = h[h.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return false }
            h = String(h[h.index(after: h.startIndex)..<close])
            return h == "::1" || h == "0:0:0:0:0:0:0:1" || h == "::ffff:127.0.0.1"
        }
        if let colon = h.lastIndex(of: ":") {
            guard h[h.index(after: colon)...].allSatisfy(\.isNumber) else { return false }
            h = String(h[..<colon])
        }
        if h.hasSuffix(".") { h.removeLast() }
        if h == "localhost" || h.hasSuffix(".localhost") { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127"
            && parts.allSatisfy { p in !p.isEmpty && p.count <= 3 && p.allSatisfy(\.isNumber) && Int(p)! <= 255 }
    }
}

/// Logs refusals at most once a second (with how many were not logged) and counts them in
/// `percbridge_http_refused_total{reason}`.
final class RefusalLog: Sendable {
    private let logger: Logger
    private let metrics: ServiceMetrics
    private let limit = LogRateLimit()

    init(logger: Logger, metrics: ServiceMetrics) { self.logger = logger; self.metrics = metrics }

    private func due() -> Int? { limit.due() }

    func tooManyApps(_ limit: Int) {
        guard let suppressed = due() else { return }
        logger.warning("refused an app: \(limit) apps are connected (http.max_apps)\(suppressed > 0 ? "; \(suppressed) more refusals in the last second" : "")")
    }

    func connectionsFull(_ limit: Int) {
        guard let suppressed = due() else { return }
        logger.warning("\(limit) HTTP/WebSocket connections are open (http.max_connections): new ones wait until one closes\(suppressed > 0 ? "; \(suppressed) more refusals in the last second" : "")")
    }

    func refused(_ r: RequestGuard.Refusal, path: String) {
        metrics.httpRefused(reason: r.reason)
        guard let suppressed = due() else { return }
        let what: String
        switch r {
        case .host(let h): what = "Host \(InputText.clip(h))"
        case .origin(let o): what = "Origin \(InputText.clip(o))"
        }
        logger.warning("refused \(path) from \(what) (403)\(suppressed > 0 ? "; \(suppressed) more refused in the last second" : "")")
    }
}

/// Applies the guard to every HTTP route (and to `/ws` when the upgrade was not done).
struct GuardMiddleware<Context: RequestContext>: RouterMiddleware {
    let guardian: RequestGuard
    let log: RefusalLog
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let r = guardian.check(request) {
            log.refused(r, path: request.uri.path)
            // Readable by the refused page (CORS), so percbridge.js can say why it cannot connect.
            return Response(status: .forbidden, headers: [.contentType: "text/plain", .accessControlAllowOrigin: "*"],
                            body: .init(byteBuffer: ByteBuffer(string: r.message)))
        }
        return try await next(request, context)
    }
}
