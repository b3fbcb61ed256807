// Talks to a running service's diagnosis routes over HTTP (GET /diagnostics, the light test).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct DiagnoseClient: Sendable {
    let base: String
    let token: String

    struct Failure: Error, CustomStringConvertible { var description: String }

    init(hostPort: String, token: String) {
        base = "http://\(hostPort)"
        self.token = token
    }

    func report() async throws -> DiagnoseReport {
        try decode(DiagnoseReport.self, try await call("GET", "/diagnostics"))
    }

    func startLightTest(tangible: String, count: Int) async throws -> LightTestStatus {
        let t = tangible.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? tangible
        return try decode(LightTestStatus.self, try await call("POST", "/diagnostics/light-test?tangible=\(t)&count=\(count)"))
    }

    func lightTestStatus() async throws -> LightTestStatus {
        try decode(LightTestStatus.self, try await call("GET", "/diagnostics/light-test"))
    }

    private func call(_ method: String, _ path: String) async throws -> Data {
        guard let url = URL(string: base + path) else { throw Failure(description: "\(base) is not a usable address; give --http HOST:PORT") }
        var req = URLRequest(url: url, timeoutInterval: 10)
        req.httpMethod = method
        if !token.isEmpty { req.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let data: Data, response: URLResponse
        do { (data, response) = try await URLSession.shared.data(for: req) } catch {
            throw Failure(description: "cannot reach the service at \(base) (\(error.localizedDescription)); is `percbridge serve` or `percbridge demo` running there? Give its address with --http HOST:PORT")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
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

    private func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do { return try JSONDecoder().decode(T.self, from: data) } catch {
            throw Failure(description: "the service at \(base) sent an answer this percbridge does not understand (\(error)); use the same version on both sides")
        }
    }
}
