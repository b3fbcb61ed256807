// Checks the access token of HTTP and WebSocket requests (required for non-loopback binds).
import Hummingbird
import HummingbirdCore

/// Empty token: everything is allowed (loopback binds). Otherwise a request must carry
/// `?token=...` or `Authorization: Bearer ...`.
struct AccessToken: Sendable {
    var token: String

    func allows(_ request: Request) -> Bool { allows(request.head) }

    func allows(_ head: HTTPRequest) -> Bool {
        allows(query: URI(head.path ?? "").queryParameters["token"].map(String.init), authorization: head.headerFields[.authorization])
    }

    /// `query`: the `token` query parameter; `authorization`: the header's value.
    func allows(query: String?, authorization: String?) -> Bool {
        guard !token.isEmpty else { return true }
        if let query, Self.same(query, token) { return true }
        if let h = authorization, h.hasPrefix("Bearer "), Self.same(String(h.dropFirst(7)), token) { return true }
        return false
    }

    /// Compares without an early exit, so timing does not reveal a matching prefix.
    private static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = x.count ^ y.count
        for i in 0..<max(x.count, y.count) {
            diff |= Int((i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0))
        }
        return diff == 0
    }
}
