// A click on a patch reaches the app below: the overlay's input shape is empty.
import Foundation
import Testing
@testable import PercOverlay
import PercTestSupport

extension X11Tests {
    @Suite struct ClickThrough {
        /// xev (x11-utils) fills the screen below the overlay and prints each ButtonPress it gets;
        /// xdotool clicks in the middle of a drawn patch.
        @Test func aClickOnAPatchReachesTheWindowBelow() throws {
            let xvfb = try Xvfb(width: 640, height: 480)
            let xev = try startXev(on: xvfb)
            defer { xev.stop() }
            let reports = OverlayReports()
            let overlay = try reports.overlay(on: xvfb)
            defer { overlay.stop() }
            overlay.show([OverlayDisc(x: 320, y: 240, radius: 40, white: false)], serial: 1)
            #expect(reports.waitForPresented(1) != nil)
            // The patch is on top of xev's (white) window where the click lands.
            let screen = try xvfb.screenshot()
            #expect(screen.rgb(320, 240) == .black)
            #expect(screen.rgb(100, 100) != .black)

            let click = try xvfb.run("/usr/bin/xdotool", ["mousemove", "320", "240", "click", "1"])
            #expect(click.status == 0, "xdotool: \(click.stderr)")
            #expect(buttonPresses(from: xev, within: 2) == 1)
        }

        /// The same click with an ordinary window (input region intact) over the patch instead: xev
        /// gets nothing, so the check above can fail.
        @Test func aClickOnAnOrdinaryWindowAboveDoesNotReachTheWindowBelow() throws {
            let xvfb = try Xvfb(width: 640, height: 480)
            let xev = try startXev(on: xvfb)
            defer { xev.stop() }
            let cover = try X11TestWindow(display: xvfb.display, x: 280, y: 200, width: 80, height: 80, white: false)
            cover.map()

            let click = try xvfb.run("/usr/bin/xdotool", ["mousemove", "320", "240", "click", "1"])
            #expect(click.status == 0, "xdotool: \(click.stderr)")
            #expect(buttonPresses(from: xev, within: 1) == 0)
        }

        /// xev over the whole screen (no window manager on Xvfb: the geometry holds), line-buffered.
        private func startXev(on xvfb: Xvfb) throws -> TestProcess {
            let xev = try xvfb.client("/usr/bin/stdbuf", ["-oL", "/usr/bin/xev", "-geometry", "\(xvfb.width)x\(xvfb.height)+0+0", "-event", "button"])
            let visible = waitUntil(timeout: 5) {
                (try? xvfb.run("/usr/bin/xdotool", ["search", "--onlyvisible", "--name", "Event Tester"]).status) == 0
            }
            #expect(visible, "xev's window never became visible")
            return xev
        }

        /// The ButtonPress lines xev prints within `seconds`.
        private func buttonPresses(from xev: TestProcess, within seconds: Double) -> Int {
            let deadline = monotonicNow() + seconds
            var presses = 0
            while monotonicNow() < deadline, let line = xev.readLine(timeout: deadline - monotonicNow()) {
                if line.hasPrefix("ButtonPress event") { presses += 1 }
            }
            return presses
        }
    }
}
