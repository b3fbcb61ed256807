// Talks to a running service's diagnosis routes over HTTP (GET /diagnostics, the light test).
// One short HTTP/1.1 exchange over swift-nio's HTTP codec: no URLSession, so the binary does
// not link FoundationNetworking and libcurl for a single local request.
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import PercInput

/// A running service's diagnosis routes over HTTP (`GET /diagnostics`, the light test).
public struct DiagnoseClient: Sendable {
    let target: HostPort?
    let base: String
    let token: String
    /// The whole exchange (connect, request, answer) must finish within this.
    var timeout: TimeAmount = .seconds(10)

    struct Failure: Error, CustomStringConvertible { var description: String }

    public init(hostPort: String, token: String) {
        target = HostPort(parsing: hostPort)
        base = "http://\(hostPort)"
        self.token = token
    }

    public func report() async throws -> DiagnoseReport {
        try decode(DiagnoseReport.self, try await call(.GET, "/diagnostics"))
    }

    public func startLightTest(tangible: String, count: Int) async throws -> LightTestStatus {
        let t = tangible.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? tangible
        return try decode(LightTestStatus.self, try await call(.POST, "/diagnostics/light-test?tangible=\(t)&count=\(count)"))
    }

    public func lightTestStatus() async throws -> LightTestStatus {
        try decode(LightTestStatus.self, try await call(.GET, "/diagnostics/light-test"))
    }

    private func call(_ method: HTTPMethod, _ path: String) async throws -> Data {
        guard let target else { throw Failure(description: "\(base) is not a usable address; give --http HOST:PORT") }
        let (status, data): (Int, Data)
        do { (status, data) = try await exchange(target, method, path) } catch {
            throw Failure(description: "cannot reach the service at \(base) (\(error)); is `percbridge serve` or `percbridge demo` running there? Give its address with --http HOST:PORT")
        }
        guard (200..<300).contains(status) else {
            let message = (try? JSONDecoder().decode([String: String].self, from: data))?["error"] ?? String(decoding: data.prefix(200), as: UTF8.self)
            if status == 401 { throw Failure(description: "the service at \(base) needs its access token: give --token") }
            if status == 404 && message.contains("Not Found") || status == 404 && path == "/diagnostics" {
                throw Failure(description: "the service at \(base) has no /diagnostics route: update it to a percbridge with `diagnose`")
            }
            throw Failure(description: "the service at \(base) answered \(status): \(message)")
        }
        return data
    }

    /// One request on a fresh connection (`Connection: close`); the answer's status and body.
    private func exchange(_ target: HostPort, _ method: HTTPMethod, _ path: String) async throws -> (Int, Data) {
        let timeout = self.timeout
        return try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            group.addTask { try await self.request(target, method, path) }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(timeout.nanoseconds))
                throw Failure(description: "no answer within \(timeout.nanoseconds / 1_000_000_000) s")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private func request(_ target: HostPort, _ method: HTTPMethod, _ path: String) async throws -> (Int, Data) {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(timeout)
            .connect(host: target.host, port: target.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: target.description)
        head.headers.add(name: "Connection", value: "close")
        head.headers.add(name: "Accept", value: "application/json")
        head.headers.add(name: "Content-Length", value: "0")
        if !token.isEmpty { head.headers.add(name: "Authorization", value: "Bearer \(token)") }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(.head(head))
            try await outbound.write(.end(nil))
            var status = 0
            var body = Data()
            for try await part in inbound {
                switch part {
                case .head(let response): status = Int(response.status.code)
                case .body(let bytes): body.append(contentsOf: bytes.readableBytesView)
                case .end: return (status, body)
                }
            }
            throw Failure(description: "the connection closed before a whole answer came")
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do { return try JSONDecoder().decode(T.self, from: data) } catch {
            throw Failure(description: "the service at \(base) sent an answer this percbridge does not understand (\(error)); use the same version on both sides")
        }
    }
}
