// Another app's window put over the overlay is pushed below it again, and the patch shows again.
import Foundation
import Testing
@testable import PercOverlay
import PercTestSupport

extension X11Tests {
    @Suite struct ReRaise {
        @Test func aWindowMappedOverThePatchIsPushedBelowIt() throws {
            let xvfb = try Xvfb(width: 400, height: 300)
            try xvfb.paintRootGrey()
            let reports = OverlayReports()
            let overlay = try reports.overlay(on: xvfb)
            defer { overlay.stop() }
            overlay.show([OverlayDisc(x: 100, y: 100, radius: 30, white: true)], serial: 1)
            #expect(reports.waitForPresented(1) != nil)

            let app = try X11TestWindow(display: xvfb.display, x: 0, y: 0, width: 300, height: 300, white: false)
            app.map()

            let screen = try xvfb.screenshot(within: 2) { $0.rgb(100, 100) == .white && $0.rgb(250, 250) == .black }
            #expect(screen.rgb(250, 250) == .black, "the app's window is on the screen")
            #expect(screen.rgb(100, 100) == .white, "the patch is on top again")
        }

        @Test func aWindowRaisedOverThePatchIsPushedBelowIt() throws {
            let xvfb = try Xvfb(width: 400, height: 300)
            try xvfb.paintRootGrey()
            let app = try X11TestWindow(display: xvfb.display, x: 0, y: 0, width: 300, height: 300, white: false)
            app.map()
            let reports = OverlayReports()
            let overlay = try reports.overlay(on: xvfb)
            defer { overlay.stop() }
            overlay.show([OverlayDisc(x: 100, y: 100, radius: 30, white: true)], serial: 1)
            #expect(reports.waitForPresented(1) != nil)
            #expect(try xvfb.screenshot().rgb(100, 100) == .white)

            // Twice, further apart than the overlay's raise limit: it keeps answering.
            for round in 1...2 {
                app.raise()
                let screen = try xvfb.screenshot(within: 2) { $0.rgb(100, 100) == .white }
                #expect(screen.rgb(100, 100) == .white, "round \(round): the patch is on top again")
                #expect(screen.rgb(250, 250) == .black, "round \(round): the app's window is still there")
                usleep(100_000)
            }
        }
    }
}
