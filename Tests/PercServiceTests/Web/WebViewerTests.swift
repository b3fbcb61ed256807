// The web viewer in a real headless chromium: connects, draws tangibles and patches, reports presented.
import Foundation
import MTKTangibles
import Testing
@testable import PercRuntime
import PercTestSupport

@Suite(.serialized) struct WebViewerTests {
    static func serverWithScene() async throws -> TestWebServer {
        let server = try await TestWebServer.start()
        server.hub.publish(FrameResult(snapshot: TestWebServer.snapshot(frame: 12, x: 200),
                                       overlay: Overlay(id: 9, patches: [
                                           Patch(id: 1, tangible: 1, center: Vec2(205, 200), radius: 6, colour: .white, purpose: .probe),
                                           Patch(id: 2, tangible: 1, center: Vec2(195, 210), radius: 6, colour: .black, purpose: .decoy),
                                       ])))
        return server
    }

    /// The page's test hook: the JSON it keeps in <pre id="state"> about what it drew.
    static func pageState(_ dom: String) throws -> [String: Any] {
        let start = try #require(dom.range(of: "<pre id=\"state\">"))
        let end = try #require(dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex))
        let text = String(dom[start.upperBound..<end.lowerBound])
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test(.enabled(if: Chromium.path != nil)) func viewerDrawsWhatTheServiceSaysAndReportsPresented() async throws {
        let server = try await Self.serverWithScene()
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/"
        // Retries: while the whole test process is stalled (seen in full runs on 2 cores), a page
        // load can miss the connection.
        var state: [String: Any] = [:]
        for _ in 0..<4 {
            let dom = try await offPool { try Chromium.run(["--virtual-time-budget=15000", "--run-all-compositor-stages-before-draw", "--dump-dom"], url: url) }
            state = try Self.pageState(dom)
            if state["connected"] as? Bool == true && state["overlay"] as? Int == 9 { break }
        }
        #expect(state["connected"] as? Bool == true)
        #expect(state["frame"] as? Int == 12)
        #expect(state["overlay"] as? Int == 9)
        let drawn = try #require(state["drawn"] as? [String: Any])
        let tangible = try #require((drawn["tangibles"] as? [[String: Any]])?.first)
        #expect(tangible["x"] as? Double == 200 && tangible["y"] as? Double == 200)
        // Drawn where the service says: surface mm × the page's scale, plus the centring offset.
        let scale = try #require(drawn["scale"] as? Double)
        let origin = try #require(drawn["origin"] as? [Double])
        #expect(scale > 0.5)
        #expect(abs((tangible["px"] as? Double ?? 0) - (origin[0] + 200 * scale)) < 0.01)
        #expect(abs((tangible["py"] as? Double ?? 0) - (origin[1] + 200 * scale)) < 0.01)
        let patches = try #require(drawn["patches"] as? [[String: Any]])
        #expect(patches.count == 2)
        let white = try #require(patches.first { $0["colour"] as? String == "white" })
        #expect(white["pixel"] as? [Int] == [255, 255, 255])
        let black = try #require(patches.first { $0["colour"] as? String == "black" })
        #expect(black["pixel"] as? [Int] == [0, 0, 0])
        #expect(((drawn["pointers"] as? [[String: Any]])?.first?["id"]) as? Int == 42)
        let presented = server.sink.received.withLock { $0 }.compactMap { m -> UInt64? in
            if case .presented(let id, _, _) = m { return id } else { return nil }
        }
        #expect(presented.contains(9), "the page reported the overlay it drew")
        let hello = server.sink.received.withLock { $0 }.contains(.hello(name: "percbridge-viewer", protocolVersion: 1, drawsOverlay: true, overlayFallback: false))
        #expect(hello)
    }

    /// A `placed` PERC (orientation unresolved): the viewer draws its touch and sensor from
    /// `placement` (pixels from percbridge.js's `touchPx`/`sensorPx`), no pose.
    @Test(.enabled(if: Chromium.path != nil)) func viewerDrawsAPlacedPercAsItsTwoPoints() async throws {
        let server = try await TestWebServer.start()
        defer { server.stop() }
        var snapshot = TestWebServer.snapshot(frame: 30, x: 200)
        var placed = TangibleSnapshot(id: 2, name: "blue", state: .placed, pose: nil, provenance: nil)
        placed.placement = Placement(touch: 5, touchPosition: Vec2(300, 150), sensor: Vec2(315, 160), poses: 2, since: 0.2)
        snapshot.tangibles.append(placed)
        server.hub.publish(FrameResult(snapshot: snapshot))
        var drawn: [[String: Any]] = []
        for _ in 0..<4 {
            let dom = try await offPool { try Chromium.run(["--virtual-time-budget=15000", "--run-all-compositor-stages-before-draw", "--dump-dom"],
                                                           url: "http://127.0.0.1:\(server.port)/") }
            drawn = ((try Self.pageState(dom))["drawn"] as? [String: Any])?["tangibles"] as? [[String: Any]] ?? []
            if drawn.count == 2 { break }
        }
        let blue = try #require(drawn.first { $0["id"] as? Int == 2 }, "\(drawn)")
        #expect(blue["state"] as? String == "placed")
        #expect(blue["x"] == nil, "no pose drawn")
        let placement = try #require(blue["placement"] as? [String: [Double]])
        #expect(placement["touch"] == [300, 150] && placement["sensor"] == [315, 160], "\(placement)")
        #expect(drawn.first { $0["id"] as? Int == 1 }?["x"] as? Double == 200, "the tracked one as before")
    }

    @Test(.enabled(if: Chromium.path != nil)) func viewerScreenshotShowsThePatches() async throws {
        let server = try await Self.serverWithScene()
        defer { server.stop() }
        let shot = Chromium.artifacts.appendingPathComponent("web-viewer.png")
        try? FileManager.default.removeItem(at: shot)
        let url = "http://127.0.0.1:\(server.port)/"
        _ = try await offPool { try Chromium.run(["--virtual-time-budget=15000", "--screenshot=\(shot.path)"], url: url) }
        let png = try Data(contentsOf: shot)
        #expect(png.count > 2000)
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        print("web viewer screenshot: \(shot.path)")
    }
}
