// The overlay draws exactly its discs, black and white, over a real client's grey; the rest shows through.
import Foundation
import Testing
@testable import PercOverlay
import PercTestSupport

extension X11Tests {
    @Suite struct Drawing {
        /// The root painted grey50 by xsetroot, then three discs; read back with xwd.
        @Test func eachDiscShowsItsColourAndTheGreyBelowShowsEverywhereElse() throws {
            let xvfb = try Xvfb(width: 640, height: 480)
            try xvfb.paintRootGrey()
            let reports = OverlayReports()
            let overlay = try reports.overlay(on: xvfb)
            defer { overlay.stop() }
            overlay.show([
                OverlayDisc(x: 100, y: 100, radius: 30, white: true),
                OverlayDisc(x: 300, y: 200, radius: 40, white: false),
                OverlayDisc(x: 500.5, y: 400.5, radius: 12, white: true),
            ], serial: 1)
            #expect(reports.waitForPresented(1) != nil, "no presented report; Xvfb log: \(xvfb.log)")

            let screen = try xvfb.screenshot()
            #expect(screen.rgb(100, 100) == .white)
            #expect(screen.rgb(300, 200) == .black)
            #expect(screen.rgb(500, 400) == .white)
            // Just inside each rim, the disc; just outside, the grey: the shape is the disc.
            #expect(screen.rgb(100 + 27, 100) == .white)
            #expect(screen.rgb(300, 200 - 37) == .black)
            #expect(screen.rgb(100 + 33, 100) == .grey50)
            #expect(screen.rgb(300 + 43, 200) == .grey50)
            // The corners of a disc's bounding square are outside the disc.
            #expect(screen.rgb(300 + 35, 200 + 35) == .grey50)
            #expect(screen.rgb(100 - 28, 100 - 28) == .grey50)
            #expect(screen.rgb(5, 5) == .grey50)
            #expect(screen.rgb(620, 20) == .grey50)
        }

        @Test func anEmptyFrameClearsEveryPatch() throws {
            let xvfb = try Xvfb(width: 320, height: 240)
            try xvfb.paintRootGrey()
            let reports = OverlayReports()
            let overlay = try reports.overlay(on: xvfb)
            defer { overlay.stop() }
            overlay.show([OverlayDisc(x: 160, y: 120, radius: 50, white: true)], serial: 1)
            #expect(reports.waitForPresented(1) != nil)
            #expect(try xvfb.screenshot().rgb(160, 120) == .white)

            overlay.show([], serial: 2)
            #expect(reports.waitForPresented(2) != nil, "an empty frame is reported too")
            #expect(try xvfb.screenshot().rgb(160, 120) == .grey50)
        }

        @Test func aNewFrameReplacesTheDiscsOfTheLastOne() throws {
            let xvfb = try Xvfb(width: 320, height: 240)
            try xvfb.paintRootGrey()
            let reports = OverlayReports()
            let overlay = try reports.overlay(on: xvfb)
            defer { overlay.stop() }
            overlay.show([OverlayDisc(x: 80, y: 120, radius: 30, white: true)], serial: 1)
            #expect(reports.waitForPresented(1) != nil)
            overlay.show([OverlayDisc(x: 240, y: 120, radius: 30, white: false)], serial: 2)
            #expect(reports.waitForPresented(2) != nil)

            let screen = try xvfb.screenshot()
            #expect(screen.rgb(80, 120) == .grey50)
            #expect(screen.rgb(240, 120) == .black)
        }
    }
}
