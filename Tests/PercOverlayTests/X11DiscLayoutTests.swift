// Discs to X arcs: bounded in count and radius, off-screen and non-numbers left out.
import Testing
@testable import PercOverlay

@Suite struct X11DiscLayoutTests {
    @Test func aDiscBecomesItsBoundingSquare() {
        let layout = DiscLayout([OverlayDisc(x: 100, y: 50, radius: 10, white: true)], rootWidth: 640, rootHeight: 480)
        #expect(layout.arcs == [DiscLayout.Arc(x: 90, y: 40, diameter: 20, white: true)])
        #expect(layout.bounds == DiscLayout.Box(x: 90, y: 40, width: 20, height: 20))
    }

    @Test func moreThan256DiscsDropTheRest() {
        let discs = (0..<300).map { OverlayDisc(x: Double($0 % 600), y: 100, radius: 3, white: false) }
        let layout = DiscLayout(discs, rootWidth: 640, rootHeight: 480)
        #expect(layout.arcs.count == 256)
        #expect(layout.droppedOverLimit == 44)
    }

    @Test func radiiAreClampedAndTheBoundsStayOnTheScreen() {
        let layout = DiscLayout([OverlayDisc(x: 10, y: 10, radius: 1e9, white: true),
                                 OverlayDisc(x: 20, y: 20, radius: 0, white: false)], rootWidth: 640, rootHeight: 480)
        #expect(layout.arcs[0].diameter == Int(2 * DiscLayout.maxRadius))
        #expect(layout.arcs[1].diameter == 1)
        #expect(layout.bounds == DiscLayout.Box(x: 0, y: 0, width: 640, height: 480))
    }

    @Test func discsOffTheScreenOrNotNumbersAreLeftOut() {
        let layout = DiscLayout([OverlayDisc(x: -20, y: 10, radius: 10, white: true),
                                 OverlayDisc(x: .nan, y: 10, radius: 10, white: true),
                                 OverlayDisc(x: 10, y: 10, radius: .infinity, white: true),
                                 OverlayDisc(x: 645, y: 10, radius: 10, white: true)], rootWidth: 640, rootHeight: 480)
        #expect(layout.arcs.count == 1, "only the one reaching into the screen from the right")
        #expect(layout.droppedOffScreen == 3)
        #expect(layout.bounds == DiscLayout.Box(x: 635, y: 0, width: 5, height: 20))
    }

    @Test func coloursAreDrawnInRunsInTheCallersOrder() {
        let layout = DiscLayout([true, true, false, true].enumerated().map { OverlayDisc(x: Double(10 + 20 * $0), y: 10, radius: 5, white: $1) },
                                rootWidth: 640, rootHeight: 480)
        #expect(layout.colourRuns.map(\.white) == [true, false, true])
        #expect(layout.colourRuns.map(\.arcs.count) == [2, 1, 1])
    }

    @Test func nothingToDrawHasNoBounds() {
        #expect(DiscLayout([], rootWidth: 640, rootHeight: 480).bounds == nil)
        #expect(DiscLayout([], rootWidth: 640, rootHeight: 480).colourRuns.isEmpty)
    }
}
