// Touches and clicks on a patch reach the app below: the layer surface's input region is empty.
import Foundation
import Testing
@testable import PercOverlay
import PercTestSupport

extension WaylandTests {
    @Suite struct ClickThrough {
        /// A fullscreen app under the overlay counts the presses a virtual pointer makes on a
        /// patch (overlay drawn above the app there) and beside it: every press reaches the app.
        @Test func pressesOnAPatchReachTheAppBelow() throws {
            let sway = try Sway(width: 320, height: 240)
            let app = try WaylandClickCounter(socketPath: sway.socketPath)
            let reports = WaylandReports()
            let overlay = try reports.overlay(on: sway)
            defer { overlay.stop() }
            overlay.show([OverlayDisc(x: 160, y: 120, radius: 30, white: true)], serial: 1)
            #expect(reports.waitForPresented(1) != nil)
            let shot = try sway.screenshot()
            #expect(shot.rgb(160, 120) == WaylandColour.white, "the patch is above the app: \(WaylandColour.hex(shot.rgb(160, 120)))")
            #expect(shot.rgb(20, 20) == WaylandClickCounter.colour & 0xFFFFFF, "the app fills the screen: \(WaylandColour.hex(shot.rgb(20, 20)))")

            let pointer = try WaylandVirtualPointer(socketPath: sway.socketPath)
            // The seat now has a pointer: the app takes it, and the compositor has its wl_pointer
            // before the first click (one more round trip sends get_pointer and waits for it).
            #expect(waitUntil(timeout: 2) { app.pump(); return app.hasPointer })
            app.pump()
            pointer.click(x: 160, y: 120, width: 320, height: 240)
            _ = waitUntil(timeout: 2) { app.pump(); return app.presses >= 1 }
            pointer.click(x: 40, y: 200, width: 320, height: 240)
            _ = waitUntil(timeout: 2) { app.pump(); return app.presses >= 2 }
            #expect(app.presses == 2, "the app got \(app.presses) of 2 presses")
            #expect(app.pressedAt.first.map { abs($0.x - 160) < 1 && abs($0.y - 120) < 1 } == true, "\(app.pressedAt)")
        }

        /// The control: the same layer surface with its default input region (all of it) takes
        /// the presses, so the app counts none. The test above would see that.
        @Test func aLayerSurfaceThatKeepsItsInputRegionTakesThePresses() throws {
            let sway = try Sway(width: 320, height: 240)
            let app = try WaylandClickCounter(socketPath: sway.socketPath)
            let reports = WaylandReports()
            let overlay = try reports.overlay(on: sway, clickThrough: false)
            defer { overlay.stop() }
            overlay.show([OverlayDisc(x: 160, y: 120, radius: 30, white: true)], serial: 1)
            #expect(reports.waitForPresented(1) != nil)
            let pointer = try WaylandVirtualPointer(socketPath: sway.socketPath)
            #expect(waitUntil(timeout: 2) { app.pump(); return app.hasPointer }, "the app has a pointer: a press could reach it")
            app.pump()
            pointer.click(x: 160, y: 120, width: 320, height: 240)
            pointer.click(x: 40, y: 200, width: 320, height: 240)
            _ = waitUntil(timeout: 1) { app.pump(); return app.presses > 0 }
            #expect(app.presses == 0, "the app got \(app.presses) presses through a surface that takes input")
        }
    }
}
