// The layer surface shows each disc in its colour where it was planned, and nothing else.
import Foundation
import Testing
@testable import PercOverlay
import PercOverlayClient
import PercTestSupport

extension WaylandTests {
    @Suite struct Drawing {
        @Test func eachDiscShowsInItsColourAtItsPlaceAndTheRestShowsWhatIsBelow() throws {
            let sway = try Sway(width: 640, height: 480)
            let below = try sway.screenshot()
            let reports = WaylandReports()
            let overlay = try reports.overlay(on: sway)
            defer { overlay.stop() }
            #expect(overlay.output == ScreenOutput(name: "HEADLESS-1", x: 0, y: 0, width: 640, height: 480, refreshHz: overlay.output.refreshHz, primary: true))

            let discs = [OverlayDisc(x: 100, y: 100, radius: 20, white: true), OverlayDisc(x: 300, y: 200, radius: 15, white: false),
                         OverlayDisc(x: 600, y: 450, radius: 10, white: true)]
            overlay.show(discs, serial: 1)
            #expect(reports.waitForPresented(1) != nil, "frame 1 presented")
            let shot = try sway.screenshot()
            for d in discs {
                let want = d.white ? WaylandColour.white : WaylandColour.black
                #expect(shot.rgb(Int(d.x), Int(d.y)) == want, "centre of \(d): \(WaylandColour.hex(shot.rgb(Int(d.x), Int(d.y))))")
                // Just outside the disc the app below shows, unchanged (alpha 0 there).
                let (ox, oy) = (Int(d.x + d.radius) + 3, Int(d.y))
                #expect(shot.rgb(ox, oy) == below.rgb(ox, oy), "beside \(d): \(WaylandColour.hex(shot.rgb(ox, oy)))")
            }
            #expect(below.rgb(100, 100) != WaylandColour.white && below.rgb(300, 200) != WaylandColour.black, "the background differs from the discs")

            // A new frame replaces the old: the first disc is gone, the new one is there.
            overlay.show([OverlayDisc(x: 400, y: 100, radius: 20, white: false)], serial: 2)
            #expect(reports.waitForPresented(2) != nil, "frame 2 presented")
            let next = try sway.screenshot()
            #expect(next.rgb(100, 100) == below.rgb(100, 100), "old disc left: \(WaylandColour.hex(next.rgb(100, 100)))")
            #expect(next.rgb(400, 100) == WaylandColour.black)
        }

        /// A touch surface that is a rotated rectangle on the second of two outputs: the shared
        /// mapping (millimetres → layout pixels) and the Wayland layer's layout → surface offset
        /// put every planned patch where it belongs, and nothing on the first output.
        @Test func aRotatedRectangleOnTheSecondOutputPutsEachPlannedPatchWhereTheMappingSays() throws {
            let sway = try Sway(width: 640, height: 480, outputs: 2)
            let below = try sway.screenshot()
            let reports = WaylandReports()
            let overlay = try reports.overlay(on: sway, output: "HEADLESS-2")
            defer { overlay.stop() }
            #expect(overlay.output.name == "HEADLESS-2" && overlay.output.x == 640, "\(overlay.output)")
            #expect(overlay.outputs.map(\.name) == ["HEADLESS-1", "HEADLESS-2"])

            let mapping = try SurfaceMapping.make(originX: 640 + 40, originY: 30, width: 400, height: 300, rotation: 90,
                                                  surfaceWidthMM: 200, surfaceHeightMM: 150).get()
            let planned: [(x: Double, y: Double, white: Bool)] = [(20, 20, true), (180, 30, false), (100, 130, true), (30, 140, false)]
            let discs = planned.map { p -> OverlayDisc in
                let px = mapping.pixel(x: p.x, y: p.y)
                return OverlayDisc(x: px.x, y: px.y, radius: 8, white: p.white)
            }
            overlay.show(discs, serial: 1)
            #expect(reports.waitForPresented(1) != nil)
            let shot = try sway.screenshot()
            for d in discs {
                #expect(d.x >= 640, "on the second output: \(d)")
                let got = shot.rgb(Int(d.x.rounded(.down)), Int(d.y.rounded(.down)))
                #expect(got == (d.white ? WaylandColour.white : WaylandColour.black), "\(d): \(WaylandColour.hex(got))")
            }
            // At 90° the surface's origin is the rectangle's top-right corner: (20, 20) mm is near it.
            #expect(discs[0].x > 640 + 40 + 300 && discs[0].y < 30 + 60, "\(discs[0])")
            var changed = 0
            for y in stride(from: 0, to: 480, by: 4) {
                for x in stride(from: 0, to: 640, by: 4) where shot.rgb(x, y) != below.rgb(x, y) { changed += 1 }
            }
            #expect(changed == 0, "\(changed) pixels changed on the first output")
        }
    }
}
