// HTTP routes of the live diagnosis: GET /diagnostics, GET and POST /diagnostics/light-test (docs/diagnose.md).
import Foundation
import Hummingbird
import NIOCore

enum DiagnosticsRoutes {
    static func register<Context: RequestContext>(on router: Router<Context>, _ diagnostics: any DiagnosticsSource) {
        router.get("/diagnostics") { _, _ in json(diagnostics.reportForWeb()) }
        router.get("/diagnostics/light-test") { _, _ in
            guard let s = diagnostics.lightTestStatusForWeb() else {
                return problem(.notFound, "no light test has run; start one with POST /diagnostics/light-test?tangible=ID&count=N")
            }
            return json(s)
        }
        router.post("/diagnostics/light-test") { request, _ in
            let q = request.uri.queryParameters
            guard let tangible = q.get("tangible"), let count = q.get("count").flatMap({ Int($0) }) else {
                return problem(.badRequest, "give ?tangible=ID_OR_NAME&count=N")
            }
            switch diagnostics.startLightTestForWeb(tangible: tangible, count: count) {
            case .success(let status): return json(status, status: .accepted)
            case .failure(let refusal): return problem(refusal.busy ? .conflict : .badRequest, refusal.message)
            }
        }
    }

    private static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        let body = (try? e.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    private static func problem(_ status: HTTPResponse.Status, _ message: String) -> Response {
        json(["error": message], status: status)
    }
}
