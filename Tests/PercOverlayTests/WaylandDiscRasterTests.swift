// The Wayland layer's pixels: opaque discs in a transparent buffer, at the output's scale, old discs cleared (pure).
import Testing
@testable import PercOverlay

struct WaylandDiscRasterTests {
    @Test func aDiscIsOpaqueInsideTransparentOutsideAndScaledToBufferPixels() {
        let (w, h) = (40, 20)
        var pixels = [UInt32](repeating: 0, count: w * h)
        let layout = DiscLayout([OverlayDisc(x: 5, y: 5, radius: 3, white: false)], rootWidth: 20, rootHeight: 10)
        let box = pixels.withUnsafeMutableBufferPointer { DiscRaster.paint(layout, scale: 2, into: $0, width: w, height: h, clearing: nil) }
        #expect(box == DiscRaster.Box(x: 4, y: 4, width: 12, height: 12))
        #expect(pixels[10 * w + 10] == DiscRaster.black, "the centre, at twice the surface coordinates")
        #expect(pixels[4 * w + 4] == DiscRaster.transparent, "the bounding square's corner is outside the disc")
        #expect(pixels[10 * w + 30] == DiscRaster.transparent)
        #expect(pixels.filter { $0 != 0 }.count > 100 && pixels.filter { $0 != 0 }.count < 12 * 12, "a disc, not a square")
    }

    @Test func theNextFrameClearsWhatThisBufferShowedBefore() {
        let (w, h) = (20, 10)
        var pixels = [UInt32](repeating: 0, count: w * h)
        let first = DiscLayout([OverlayDisc(x: 5, y: 5, radius: 3, white: true)], rootWidth: w, rootHeight: h)
        let second = DiscLayout([OverlayDisc(x: 15, y: 5, radius: 2, white: false)], rootWidth: w, rootHeight: h)
        let old = pixels.withUnsafeMutableBufferPointer { DiscRaster.paint(first, scale: 1, into: $0, width: w, height: h, clearing: nil) }
        #expect(pixels[5 * w + 5] == DiscRaster.white)
        _ = pixels.withUnsafeMutableBufferPointer { DiscRaster.paint(second, scale: 1, into: $0, width: w, height: h, clearing: old) }
        #expect(pixels[5 * w + 5] == DiscRaster.transparent)
        #expect(pixels[5 * w + 15] == DiscRaster.black)
        #expect(DiscRaster.union(old, nil) == old)
    }
}
