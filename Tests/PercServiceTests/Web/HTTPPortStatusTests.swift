// With `http.bind` port 0 the real port is in the control API's Status and `percbridge status`.
import Foundation
import Testing
import PercTestSupport

@Suite struct HTTPPortStatusTests {
    @Test func statusGivesTheRealWebAddressOfAPortZeroBind() async throws {
        let demo = try await ControlDemo(scenario: "single-placement")  // --http 127.0.0.1:0
        defer { demo.stop() }
        var url: String?
        for _ in 0..<100 {
            url = try await demo.status()["http"]?.string
            if url != nil { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let address = try #require(url, "Status has no http address")
        let port = try #require(address.split(separator: ":").last.flatMap { Int($0.dropLast()) })
        #expect(address.hasPrefix("http://127.0.0.1:") && address.hasSuffix("/") && port > 0, "\(address)")
        // It is where the service answers (the viewer page).
        let page = try await TestHTTP.get(port: port, path: "/")
        #expect(page.contains("PercBridge viewer"))
        let text = try await demo.cli(["status"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("web viewer: \(address)") && text.stdout.contains("ws://127.0.0.1:\(port)/ws"), "\(text.stdout)")
    }
}

/// A plain HTTP GET over a real socket (WSProbe's plain mode), body only.
enum TestHTTP {
    static func get(port: Int, path: String) async throws -> String {
        try await WSProbe.runAsync(["port": port, "path": path, "plain": true]).joined(separator: "\n")
    }
}
