// Who draws the overlay when `percbridge overlay` (a fallback drawer) and an app that draws are both connected.
import Foundation
import MTKTangibles
import LightCheck
import Testing
import PercTestSupport
@testable import PercRuntime
@testable import PercWeb

@Suite struct OverlayFallbackTests {
    static let fallbackHello = #"{"type": "hello", "protocol": 1, "name": "percbridge overlay", "draws_overlay": true, "overlay_fallback": true}"#
    static let appHello = #"{"type": "hello", "protocol": 1, "name": "table app", "draws_overlay": true}"#

    static func overlay(_ id: UInt64) -> FrameResult {
        FrameResult(snapshot: TestWebServer.snapshot(frame: id),
                    overlay: Overlay(id: id, patches: [Patch(id: Int(id), tangible: 1, center: Vec2(105, 200), radius: 4, colour: .white, purpose: .probe)]))
    }

    static func types(_ lines: [String]) -> [String] {
        WSProbe.messages(lines).compactMap { m in
            guard let t = m["type"] as? String, t != "frame" else { return nil }
            if t == "drawing" { return "drawing:\(m["draws"] as? Bool == true)" }
            if t == "overlay" { return "overlay:\(m["overlay"] as? Int ?? -1)" }
            return t
        }
    }

    /// Alone, the fallback draws: told so after its hello, then gets every overlay, and its
    /// presented reports reach the service.
    @Test func aloneTheFallbackDraws() async throws {
        let server = try await TestWebServer.start()
        defer { server.stop() }
        server.hub.publish(Self.overlay(3))
        async let lines = WSProbe.runAsync(["port": server.port, "seconds": 1.5, "send": [Self.fallbackHello],
                                            "reply": [["on": "overlay", "send": ["type": "presented", "overlay": 3, "time": 1.0]]]])
        try await Task.sleep(for: .milliseconds(700))
        server.hub.publish(Self.overlay(4))
        let seen = Self.types(try await lines)
        #expect(seen.first == "hello")
        #expect(seen.contains("drawing:true"))
        #expect(seen.contains("overlay:4"))
        #expect(!seen.contains("drawing:false"))
        let presented = server.sink.received.withLock { $0 }.filter { if case .presented = $0 { return true }; return false }
        #expect(!presented.isEmpty, "the drawing fallback's presented reports must reach the service")
    }

    /// An app that draws wins: the fallback is told to stand by (naming the app), gets no more
    /// overlays, its presented reports are dropped; when the app leaves it draws again and
    /// gets the current overlay at once.
    @Test func anAppThatDrawsWinsAndTheFallbackTakesOverWhenItLeaves() async throws {
        let server = try await TestWebServer.start()
        defer { server.stop() }
        server.hub.publish(Self.overlay(3))
        // The fallback answers every overlay it gets with presented (for overlay 99, so the
        // service's record shows whose report it was).
        async let fallback = WSProbe.runAsync(["port": server.port, "seconds": 4.0, "send": [Self.fallbackHello],
                                               "reply": [["on": "overlay", "send": ["type": "presented", "overlay": 99]],
                                                         ["on": "drawing", "send": ["type": "presented", "overlay": 98]]]])
        try await Task.sleep(for: .milliseconds(600))
        async let app = WSProbe.runAsync(["port": server.port, "seconds": 1.5, "send": [Self.appHello]])
        try await Task.sleep(for: .milliseconds(700))
        server.hub.publish(Self.overlay(5))   // while the app draws: not for the fallback
        let appSeen = Self.types(try await app)
        try await Task.sleep(for: .milliseconds(600))
        server.hub.publish(Self.overlay(6))   // the app has gone: the fallback draws again
        let seen = Self.types(try await fallback)
        #expect(appSeen.contains("overlay:5"), "the app that draws gets the overlays: \(appSeen)")
        #expect(!appSeen.contains { $0.hasPrefix("drawing") }, "only fallback drawers are told their role")
        #expect(seen.filter { $0.hasPrefix("drawing") } == ["drawing:true", "drawing:false", "drawing:true"], "\(seen)")
        // Standing by (between "drawing:false" and the next "drawing:true") it got no overlay;
        // on taking over it gets the overlay current then (5), then the next (6).
        let off = try #require(seen.firstIndex(of: "drawing:false"))
        let back = try #require(seen.lastIndex(of: "drawing:true"))
        #expect(off < back && !seen[off..<back].contains { $0.hasPrefix("overlay") }, "a fallback standing by gets no overlays: \(seen)")
        #expect(seen[back...].contains("overlay:5") && seen[back...].contains("overlay:6"), "\(seen)")
        let fromFallback = server.sink.received.withLock { $0 }.compactMap { m -> UInt64? in
            if case .presented(let id, _, _) = m { return id }
            return nil
        }
        // Its report on being told to stand by (98) was dropped; the one on taking over (98) and
        // those for overlays it drew (99) arrived.
        #expect(fromFallback.filter { $0 == 98 }.count == 2, "\(fromFallback)")
        #expect(fromFallback.contains(99))
        #expect(server.hub.overlayDrawingClients == 0)
    }

    /// Two fallbacks: only the first connected draws; the second takes over when it leaves.
    @Test func ofTwoFallbacksOnlyTheFirstDraws() async throws {
        let server = try await TestWebServer.start()
        defer { server.stop() }
        async let first = WSProbe.runAsync(["port": server.port, "seconds": 1.2, "send": [Self.fallbackHello]])
        try await Task.sleep(for: .milliseconds(400))
        async let second = WSProbe.runAsync(["port": server.port, "seconds": 2.2, "send": [Self.fallbackHello]])
        try await Task.sleep(for: .milliseconds(400))
        server.hub.publish(Self.overlay(7))
        let a = Self.types(try await first)
        try await Task.sleep(for: .milliseconds(300))
        let b = Self.types(try await second)
        #expect(a.contains("overlay:7") && a.filter { $0.hasPrefix("drawing") } == ["drawing:true"], "\(a)")
        #expect(b.filter { $0.hasPrefix("drawing") } == ["drawing:false", "drawing:true"], "\(b)")
        #expect(!b.prefix(while: { $0 != "drawing:true" }).contains("overlay:7"), "\(b)")
    }

    /// A fallback drawer that says hello again as an ordinary drawing app is one: it draws (and
    /// gets overlays) and the other fallback stands by.
    @Test func aFallbackThatSaysHelloAgainAsAnAppDraws() async throws {
        let server = try await TestWebServer.start()
        defer { server.stop() }
        async let first = WSProbe.runAsync(["port": server.port, "seconds": 1.6, "send": [Self.fallbackHello]])
        try await Task.sleep(for: .milliseconds(400))
        async let second = WSProbe.runAsync(["port": server.port, "seconds": 1.0, "send": [Self.fallbackHello, Self.appHello]])
        try await Task.sleep(for: .milliseconds(500))
        server.hub.publish(Self.overlay(8))
        let b = Self.types(try await second)
        let a = Self.types(try await first)
        #expect(b.contains("overlay:8"), "the app it became gets the overlays: \(b)")
        // The first stands by while the second is an app, and takes over when it leaves.
        #expect(a.filter { $0.hasPrefix("drawing") } == ["drawing:true", "drawing:false", "drawing:true"], "\(a)")
        let back = try #require(a.lastIndex(of: "drawing:true"))
        #expect(!a[..<back].contains("overlay:8"), "a fallback standing by got the app's overlay: \(a)")
    }

    /// `overlay_fallback` without `draws_overlay` means nothing: such an app is not a drawer.
    @Test func fallbackWithoutDrawingIsNotADrawer() async throws {
        let server = try await TestWebServer.start()
        defer { server.stop() }
        let lines = try await WSProbe.runAsync(["port": server.port, "seconds": 0.6, "send": [
            #"{"type": "hello", "protocol": 1, "name": "viewer", "overlay_fallback": true}"#]])
        #expect(!Self.types(lines).contains { $0.hasPrefix("drawing") })
        #expect(server.hub.overlayDrawingClients == 0)
    }
}
