// percbridge-overlay as a client of a real service hub, on a real X server: each planned patch's
// centre shows its colour at the mapped pixel (whole output, an offset rectangle, a rotated one),
// read back by xwd. (The service restarting: OverlayCLITests.)
import Foundation
import MTKTangibles
import Testing
import PercTestSupport
@testable import PercRuntime
@testable import PercWeb

@Suite(.serialized) struct OverlayMappingTests {
    static var overlayBinary: String { CLI.binary.deletingLastPathComponent().appendingPathComponent("percbridge-overlay").path }

    /// Two patches: white at (100, 100) mm and black at (600, 300) mm, radius 8 mm (surface 800 × 450 mm).
    static func overlay(_ id: UInt64) -> FrameResult {
        FrameResult(snapshot: TestWebServer.snapshot(frame: id), overlay: Overlay(id: id, patches: [
            Patch(id: 1, tangible: 1, center: Vec2(100, 100), radius: 8, colour: .white, purpose: .probe),
            Patch(id: 2, tangible: 1, center: Vec2(600, 300), radius: 8, colour: .black, purpose: .decoy),
        ]))
    }

    static func waitUntil(_ timeout: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() { if Date() > deadline { return false }; usleep(20_000) }
        return true
    }

    /// `flags` place the surface; `white` and `black` are where the two patch centres must land
    /// (worked out by hand from docs/overlay.md's rules, not by the overlay's code).
    @Test(arguments: [
        // The whole 1000 × 600 output: 1.25 px/mm across, 1.333 down.
        ([String](), (125, 133), (750, 400)),
        // A 500 × 300 rectangle at (200, 100): 0.625 and 0.667 px/mm.
        (["--origin", "200,100", "--size", "500x300"], (262, 166), (575, 300)),
        // Turned 90° in a 450 × 400 rectangle at (100, 50): the surface's origin is its top-right
        // corner (550, 50), x runs down (0.5 px/mm), y runs left (1 px/mm).
        (["--origin", "100,50", "--size", "450x400", "--rotation", "90"], (450, 100), (250, 350)),
    ])
    func eachPatchCentreShowsItsColourWhereTheMappingPutsIt(flags: [String], white: (Int, Int), black: (Int, Int)) async throws {
        let x = try Xvfb(width: 1000, height: 600)
        defer { x.stop() }
        try x.paintRootGrey()
        let server = try await TestWebServer.start()
        defer { server.stop() }
        let overlay = try TestProcess(Self.overlayBinary, ["--url", "ws://127.0.0.1:\(server.port)/ws"] + flags,
                                      environment: ["DISPLAY": x.display])
        defer { overlay.stop() }
        #expect(Self.waitUntil(10) { server.hub.overlayDrawingClients == 1 }, "the overlay did not connect: \(overlay.errorOutput())")
        try await Task.sleep(for: .milliseconds(200))
        server.hub.publish(Self.overlay(5))
        let shot = try x.screenshot(within: 5) { $0.rgb(white.0, white.1) == .white && $0.rgb(black.0, black.1) == .black }
        #expect(shot.rgb(white.0, white.1) == .white, "white patch centre at \(white): \(shot.rgb(white.0, white.1)); overlay: \(overlay.errorOutput())")
        #expect(shot.rgb(black.0, black.1) == .black, "black patch centre at \(black): \(shot.rgb(black.0, black.1))")
        // Between them the app below shows through (the window is shaped to the patches).
        let mid = ((white.0 + black.0) / 2, (white.1 + black.1) / 2)
        #expect(shot.rgb(mid.0, mid.1) == .grey50, "between the patches: \(shot.rgb(mid.0, mid.1))")
        // Its presented report reached the service.
        #expect(Self.waitUntil(3) {
            server.sink.received.withLock { $0 }.contains { if case .presented(5, _, _) = $0 { return true }; return false }
        }, "no presented report for overlay 5")
    }
}
