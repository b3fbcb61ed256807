// A `HOST:PORT` endpoint as written in the config and on the command line.
import NIOCore

/// A host and a port, parsed from `HOST:PORT` (`[::1]:3333` for IPv6 literals).
public struct HostPort: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) { self.host = host; self.port = port }

    /// Parses `HOST:PORT`; `allowZeroPort` admits port 0 (let the system choose, for binds).
    public init?(parsing text: String, allowZeroPort: Bool = false) {
        var host: Substring
        var portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") { return nil }  // a bare IPv6 literal needs brackets
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "/" }),
              let port = Int(portText), port >= (allowZeroPort ? 0 : 1), port <= 65535 else { return nil }
        self.host = String(host)
        self.port = port
    }

    /// Whether only this machine can reach the address (no token needed for such binds).
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

extension HostPort {
    /// Whether `text` is an IPv4 or IPv6 address (no name, no port).
    public static func isIPLiteral(_ text: String) -> Bool { canonicalIP(text) != nil }

    /// The address as NIO prints a sender's address, so config entries and senders compare equal.
    static func canonicalIP(_ text: String) -> String? {
        (try? SocketAddress(ipAddress: text, port: 0))?.ipAddress
    }
}
