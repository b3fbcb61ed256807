// The overlay's pure parts: mapping mm → pixels, what it does with each message, the clock mapping.
import Foundation
import Testing
@testable import PercOverlayClient

@Suite struct SurfaceMappingTests {
    static func mapping(rotation: Int, w: Double = 1000, h: Double = 500) throws -> SurfaceMapping {
        try SurfaceMapping.make(originX: 100, originY: 50, width: w, height: h, rotation: rotation,
                                surfaceWidthMM: 800, surfaceHeightMM: 400).get()
    }

    @Test(arguments: [0, 90, 180, 270]) func cornersLandOnTheRectangle(rotation: Int) throws {
        let m = try Self.mapping(rotation: rotation)
        let origin = m.pixel(x: 0, y: 0)
        let expected: (Double, Double) = switch rotation {
        case 90: (1100, 50)      // top-right
        case 180: (1100, 550)    // bottom-right
        case 270: (100, 550)     // bottom-left
        default: (100, 50)
        }
        #expect(origin.x == expected.0 && origin.y == expected.1)
        // The far corner is the opposite one, whatever the rotation.
        let far = m.pixel(x: 800, y: 400)
        #expect(abs(far.x - (1200 - expected.0)) < 1e-9 && abs(far.y - (600 - expected.1)) < 1e-9)
    }

    @Test(arguments: [0, 90, 180, 270]) func surfacePointIsTheInverse(rotation: Int) throws {
        let m = try Self.mapping(rotation: rotation)
        for (x, y) in [(0.0, 0.0), (123.4, 56.7), (800.0, 400.0), (400.0, 10.0)] {
            let p = m.pixel(x: x, y: y)
            let back = m.surfacePoint(x: p.x, y: p.y)
            #expect(abs(back.x - x) < 1e-9 && abs(back.y - y) < 1e-9)
        }
    }

    @Test func radiusUsesTheLargerScaleSoAPatchIsNeverSmaller() throws {
        // 1000 px over 800 mm = 1.25 px/mm across, 500 px over 400 mm = 1.25 down: equal.
        #expect(try Self.mapping(rotation: 0).pixels(radius: 4) == 5)
        // Turned 90°: the surface's 800 mm run along the 500 px height (0.625) and its 400 mm
        // along the 1000 px width (2.5): the larger is used.
        #expect(try Self.mapping(rotation: 90).pixels(radius: 4) == 10)
    }

    @Test func badRectanglesAndRotationsAreRefusedWithAReason() {
        let r1 = SurfaceMapping.make(originX: 0, originY: 0, width: 0, height: 10, rotation: 0, surfaceWidthMM: 1, surfaceHeightMM: 1)
        #expect(throws: MappingError.self) { try r1.get() }
        let r2 = SurfaceMapping.make(originX: 0, originY: 0, width: 10, height: 10, rotation: 45, surfaceWidthMM: 1, surfaceHeightMM: 1)
        #expect((try? r2.get()) == nil)
        if case .failure(let e) = r2 { #expect(e.description.contains("0, 90, 180, 270")) }
        let r3 = SurfaceMapping.make(originX: .nan, originY: 0, width: 10, height: 10, rotation: 0, surfaceWidthMM: 1, surfaceHeightMM: 1)
        #expect((try? r3.get()) == nil)
    }
}

@Suite struct OverlaySessionTests {
    static let placement = OverlaySession.Placement(originX: 0, originY: 0, width: 1600, height: 800, rotation: 0)
    static let hello = ServiceMessage.hello(protocolVersion: 1, surfaceWidthMM: 800, surfaceHeightMM: 400, service: "percbridge 0.1.0")

    static func sent(_ actions: [OverlaySession.Action]) -> [[String: Any]] {
        actions.compactMap { a -> [String: Any]? in
            guard case .send(let text) = a else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        }
    }

    @Test func connectingSaysHelloAsAFallbackDrawerAndPings() throws {
        var s = OverlaySession(placement: Self.placement)
        let out = Self.sent(s.connected(now: 10))
        let hello = try #require(out.first)
        #expect(hello["type"] as? String == "hello" && hello["draws_overlay"] as? Bool == true && hello["overlay_fallback"] as? Bool == true)
        #expect(out.dropFirst().first?["type"] as? String == "ping")
    }

    @Test func drawsOnlyOnceToldToAndMapsThePatches() {
        var s = OverlaySession(placement: Self.placement)
        _ = s.connected(now: 0)
        _ = s.received(Self.hello, now: 0)
        let patch = ServiceMessage.Patch(id: 1, x: 400, y: 200, radius: 4, colour: "white")
        #expect(s.received(.overlay(id: 5, time: nil, patches: [patch]), now: 0).isEmpty, "no drawing before the service says so")
        _ = s.received(.drawing(draws: true, by: nil), now: 0)
        let shown = s.received(.overlay(id: 6, time: nil, patches: [patch, .init(id: 2, x: 0, y: 0, radius: 2, colour: "black")]), now: 0)
        #expect(shown == [.show([ScreenDisc(x: 800, y: 400, radius: 8, white: true), ScreenDisc(x: 0, y: 0, radius: 4, white: false)], serial: 6)])
    }

    @Test func standingByClearsTheScreenAndReportsNothing() {
        var s = OverlaySession(placement: Self.placement)
        _ = s.connected(now: 0); _ = s.received(Self.hello, now: 0); _ = s.received(.drawing(draws: true, by: nil), now: 0)
        _ = s.received(.overlay(id: 6, time: nil, patches: [.init(id: 1, x: 1, y: 1, radius: 1, colour: "white")]), now: 0)
        let actions = s.received(.drawing(draws: false, by: "table app"), now: 0)
        #expect(actions.first == .show([], serial: 0))
        #expect(actions.contains(.log("standing by: table app draws the overlay")))
        #expect(s.presented(serial: 6, at: 1).isEmpty, "a report after standing by is not sent")
        #expect(s.received(.overlay(id: 7, time: nil, patches: []), now: 0).isEmpty)
    }

    @Test func onlyTheLatestOverlayIsReportedOnceOnTheServiceClock() throws {
        var s = OverlaySession(placement: Self.placement)
        let ping = Self.sent(s.connected(now: 100))[1]
        let pingID = try #require(ping["id"] as? Int64)
        _ = s.received(.pong(id: pingID, appTime: 100, time: 5000.01), now: 100.02)   // offset 4900
        _ = s.received(Self.hello, now: 100); _ = s.received(.drawing(draws: true, by: nil), now: 100)
        _ = s.received(.overlay(id: 8, time: 5001.0, patches: []), now: 101)
        _ = s.received(.overlay(id: 9, time: 5001.49, patches: []), now: 101)
        #expect(s.presented(serial: 8, at: 101.5).isEmpty, "superseded")
        let report = try #require(Self.sent(s.presented(serial: 9, at: 101.5)).first)
        #expect(report["type"] as? String == "presented" && report["overlay"] as? Int == 9)
        #expect(abs((report["time"] as? Double ?? 0) - 5001.5) < 1e-6)
        #expect(s.presented(serial: 9, at: 101.6).isEmpty, "once")
        // Planned at 5001.49 on the service clock, shown at 5001.5: 10 ms.
        #expect(s.shown.total == 1 && abs((s.shown.percentiles?.p50 ?? 0) - 0.01) < 1e-6)
    }

    @Test func shownLatencyKeepsABoundedWindowAndItsPercentiles() {
        var l = ShownLatency()
        #expect(l.summary == nil)
        for i in 1...100 { l.add(Double(i) / 1000) }
        #expect(l.percentiles?.p50 == 0.05 && l.percentiles?.p99 == 0.099)
        for _ in 0..<(ShownLatency.capacity * 2) { l.add(0.002) }
        #expect(l.percentiles?.p99 == 0.002, "only the last \(ShownLatency.capacity) count")
        #expect(l.total == 100 + ShownLatency.capacity * 2)
        l.add(.nan)
        #expect(l.total == 100 + ShownLatency.capacity * 2)
    }

    @Test func anotherProtocolVersionIsFatalAndSaysWhatToDo() {
        var s = OverlaySession(placement: Self.placement)
        let a = s.received(.hello(protocolVersion: 2, surfaceWidthMM: 1, surfaceHeightMM: 1, service: "percbridge 9"), now: 0)
        guard case .fail(let why) = a.first else { Issue.record("expected fail, got \(a)"); return }
        #expect(why.contains("protocol 2") && why.contains("same release"))
    }

    @Test func tooManyOrNonsensePatchesAreBounded() {
        var s = OverlaySession(placement: Self.placement)
        _ = s.received(Self.hello, now: 0); _ = s.received(.drawing(draws: true, by: nil), now: 0)
        var patches = (0..<300).map { ServiceMessage.Patch(id: Int64($0), x: 10, y: 10, radius: 2, colour: "white") }
        patches[0].radius = .nan
        let a = s.received(.overlay(id: 3, time: nil, patches: patches), now: 0)
        guard case .show(let discs, _)? = a.last else { Issue.record("no show"); return }
        #expect(discs.count == OverlaySession.maxPatches - 1)
        #expect(a.contains { if case .log(let l) = $0 { return l.contains("300 patches") }; return false })
    }

    @Test func disconnectingClearsWhatWasDrawn() {
        var s = OverlaySession(placement: Self.placement)
        _ = s.connected(now: 0); _ = s.received(Self.hello, now: 0)
        #expect(s.disconnected().isEmpty, "nothing drawn, nothing to clear")
        _ = s.connected(now: 0); _ = s.received(Self.hello, now: 0); _ = s.received(.drawing(draws: true, by: nil), now: 0)
        #expect(s.disconnected() == [.show([], serial: 0)])
        #expect(!s.drawing)
    }
}

@Suite struct OverlayClientPartsTests {
    @Test func clockMappingKeepsTheShortestRoundTrip() {
        var c = ClockMapping()
        c.add(sent: 10, received: 10.2, serviceTime: 110.3)   // rtt 0.2, offset 100.2
        c.add(sent: 20, received: 20.01, serviceTime: 120.005) // rtt 0.01, offset 100.0
        c.add(sent: 30, received: 30.5, serviceTime: 999)      // worse: ignored
        #expect(abs((c.offset ?? 0) - 100.0) < 1e-9)
        c.add(sent: 40, received: 39, serviceTime: 1)          // negative: ignored
        #expect(abs((c.serviceTime(1) ?? 0) - 101) < 1e-9)
    }

    @Test func endpointsParseOrSayWhy() throws {
        let e = try ServiceEndpoint.parse("ws://127.0.0.1:8080/ws?token=abcdefabcdefabcd").get()
        #expect(e == ServiceEndpoint(host: "127.0.0.1", port: 8080, path: "/ws", token: "abcdefabcdefabcd"))
        #expect(try ServiceEndpoint.parse("ws://[::1]:9/ws").get().host == "::1")
        #expect((try? ServiceEndpoint.parse("http://x:1/ws").get()) == nil)
        #expect((try? ServiceEndpoint.parse("wss://x:1/ws").get()) == nil)
        #expect((try? ServiceEndpoint.parse("not a url").get()) == nil)
    }

    @Test func backoffDoublesToItsCapAndResets() {
        var b = Backoff(first: 0.25, cap: 2)
        #expect([b.failed(), b.failed(), b.failed(), b.failed(), b.failed()] == [0.25, 0.5, 1, 2, 2])
        b.succeeded()
        #expect(b.failed() == 0.25)
    }
}
