// HTTP routes of the live diagnosis: GET /diagnostics, GET and POST /diagnostics/light-test (docs/diagnose.md).
import Foundation
import Hummingbird
import NIOCore
import PercDiagnose

enum DiagnosticsRoutes {
    static func register<Context: RequestContext>(on router: Router<Context>, _ diagnostics: LiveDiagnostics) {
        router.get("/diagnostics") { _, _ in json(diagnostics.report()) }
        router.get("/diagnostics/light-test") { _, _ in
            guard let s = diagnostics.lightTestStatus else {
                return problem(.notFound, "no light test has run; start one with POST /diagnostics/light-test?tangible=ID&count=N")
            }
            return json(s)
        }
        router.post("/diagnostics/light-test") { request, _ in
            let q = request.uri.queryParameters
            guard let tangible = q.get("tangible"), let count = q.get("count").flatMap({ Int($0) }) else {
                return problem(.badRequest, "give ?tangible=ID_OR_NAME&count=N")
            }
            do { return json(try diagnostics.startLightTest(tangible: tangible, count: count), status: .accepted) }
            catch let e as LiveDiagnostics.LightTestError {
                if case .busy = e { return problem(.conflict, e.description) }
                return problem(.badRequest, e.description)
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
