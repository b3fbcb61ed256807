// readPixels reads what xwd reads.
import Foundation
import Testing
@testable import PercOverlay
import PercTestSupport

extension X11Tests {
    @Suite struct ReadPixels {
        @Test func readPixelsAgreesWithXwd() throws {
            let xvfb = try Xvfb(width: 320, height: 240)
            try xvfb.paintRootGrey()
            let reports = OverlayReports()
            let overlay = try reports.overlay(on: xvfb)
            defer { overlay.stop() }
            overlay.show([OverlayDisc(x: 80, y: 80, radius: 20, white: true),
                          OverlayDisc(x: 200, y: 150, radius: 25, white: false)], serial: 1)
            #expect(reports.waitForPresented(1) != nil)

            let points = [(x: 80, y: 80), (x: 200, y: 150), (x: 10, y: 10), (x: 319, y: 239), (x: 80 + 19, y: 80)]
            let ours = try overlay.readPixels(points).map { RGB($0.r, $0.g, $0.b) }
            let screen = try xvfb.screenshot()
            #expect(ours == points.map { screen.rgb($0.x, $0.y) })
            #expect(ours == [.white, .black, .grey50, .grey50, .white])
        }

        @Test func aPointOffTheScreenIsRefused() throws {
            let xvfb = try Xvfb(width: 320, height: 240)
            let overlay = try OverlayReports().overlay(on: xvfb)
            defer { overlay.stop() }
            #expect(throws: X11Error.self) { try overlay.readPixels([(x: 320, y: 0)]) }
        }

        @Test func theOutputsAreXvfbsOneScreen() throws {
            let xvfb = try Xvfb(width: 320, height: 240)
            let overlay = try OverlayReports().overlay(on: xvfb)
            defer { overlay.stop() }
            #expect(overlay.outputs.count == 1)
            let output = try #require(overlay.outputs.first)
            #expect(output.x == 0 && output.y == 0 && output.width == 320 && output.height == 240)
            #expect(output.rotation == 0)
        }
    }
}
