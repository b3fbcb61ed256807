// No compositor, a missing output, the compositor gone: one clear line, once, and the thread ends without spinning.
import Foundation
import Glibc
import Testing
@testable import PercOverlay
import PercTestSupport

extension WaylandTests {
    @Suite struct Errors {
        @Test func aDisplayWithNoCompositorThrowsOneLineThatSaysWhatToCheck() throws {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-nowl-\(UUID().uuidString)").path
            do {
                _ = try WaylandOverlay(display: dir + "/wayland-9", onPresented: { _, _ in }, onLost: { _ in })
                Issue.record("connected to a compositor that does not exist")
            } catch {
                #expect(error.description.hasPrefix("cannot connect to Wayland display \(dir)/wayland-9 ("), "\(error)")
                #expect(error.description.contains("is the compositor running"))
                #expect(error.description.contains("XWayland"))
                #expect(error.unavailable)
                #expect(!error.description.contains("\n"))
            }
        }

        @Test func noWaylandDisplayAnywhereSaysSo() {
            #expect(throws: WaylandError("no Wayland display: WAYLAND_DISPLAY is not set; run the overlay in the table's Wayland session")) {
                try WaylandOverlay.resolveDisplay(nil, environment: "")
            }
            #expect((try? WaylandOverlay.resolveDisplay(nil, environment: "wayland-1")) == "wayland-1")
            #expect((try? WaylandOverlay.resolveDisplay("wayland-2", environment: "wayland-1")) == "wayland-2")
        }

        @Test func anOutputThatIsNotThereIsNamedWithTheOnesThatAre() throws {
            let sway = try Sway(width: 320, height: 240, outputs: 2)
            do {
                _ = try WaylandOverlay(display: sway.socketPath, output: "HDMI-9", onPresented: { _, _ in }, onLost: { _ in })
                Issue.record("an overlay on an output that does not exist")
            } catch {
                #expect(error.description == "no output named HDMI-9; this compositor has HEADLESS-1, HEADLESS-2")
                #expect(!error.unavailable, "a wrong argument, not a missing display")
            }
        }

        @Test func aKilledCompositorIsReportedOnceAndTheThreadEndsWithoutSpinning() throws {
            let sway = try Sway(width: 320, height: 240)
            let reports = WaylandReports()
            let overlay = try reports.overlay(on: sway)
            defer { overlay.stop() }
            let lost = killedServerIsReportedOnceWithoutSpinning(overlay, reports: reports) { sway.stop() }
            #expect(lost.first?.description.hasPrefix("lost Wayland display \(sway.socketPath) while ") == true, "\(lost)")
            #expect(lost.first?.description.contains("start the overlay again") == true)
        }

        /// stop() takes the surface away: what it showed is gone from the screen.
        @Test func stopIsIdempotentAndTakesThePatchesOffTheScreen() throws {
            let sway = try Sway(width: 320, height: 240)
            let below = try sway.screenshot()
            let reports = WaylandReports()
            let overlay = try reports.overlay(on: sway)
            overlay.show([OverlayDisc(x: 160, y: 120, radius: 30, white: true)], serial: 1)
            #expect(reports.waitForPresented(1) != nil)
            #expect(try sway.screenshot().rgb(160, 120) == WaylandColour.white)
            overlay.stop()
            overlay.stop()
            #expect(overlay.hasEnded)
            #expect(reports.lostSoFar.isEmpty)
            var after: UInt32?
            #expect(waitUntil(timeout: 2) { after = try? sway.screenshot().rgb(160, 120); return after == below.rgb(160, 120) },
                    "the disc stayed: \(WaylandColour.hex(after))")
        }
    }
}
