// Pure pieces of the X11 layer: ZPixmap pixels to RGB, RandR refresh rates and rotations, raise limiting.
import Testing
@testable import PercOverlay

@Suite struct X11PixelsAndOutputsTests {
    @Test func a32BitLittleEndianPixelDecodes() {
        let format = PixelFormat(bitsPerPixel: 32, bigEndian: false, redMask: 0xFF0000, greenMask: 0x00FF00, blueMask: 0x0000FF)
        let bytes: [UInt8] = [0x33, 0x22, 0x11, 0x00]
        let rgb = bytes.withUnsafeBytes { format.rgb($0) }
        #expect(rgb.map { [$0.r, $0.g, $0.b] } == [0x11, 0x22, 0x33])
    }

    @Test func a16BitPixelScalesItsChannelsTo8Bits() {
        let format = PixelFormat(bitsPerPixel: 16, bigEndian: true, redMask: 0xF800, greenMask: 0x07E0, blueMask: 0x001F)
        let bytes: [UInt8] = [0xFF, 0xFF]
        let rgb = bytes.withUnsafeBytes { format.rgb($0) }
        #expect(rgb.map { [$0.r, $0.g, $0.b] } == [255, 255, 255])
        #expect(PixelFormat.channel(0x0010, 0x001F) == 132)
    }

    @Test func aModesRefreshIsItsPixelClockOverItsFrame() {
        // 1920×1080@60 (CEA): 148.5 MHz, 2200 × 1125.
        #expect(RandROutputs.refreshHz(dotClock: 148_500_000, htotal: 2200, vtotal: 1125, flags: 0) == 60)
        #expect(RandROutputs.refreshHz(dotClock: 0, htotal: 0, vtotal: 0, flags: 0) == nil)
        let interlaced = RandROutputs.refreshHz(dotClock: 74_250_000, htotal: 2200, vtotal: 1125, flags: XCBModeFlags.interlace)
        #expect(interlaced == 60)
    }

    @Test func rotationsAreDegrees() {
        #expect(RandROutputs.degrees(1) == 0)
        #expect(RandROutputs.degrees(2) == 90)
        #expect(RandROutputs.degrees(4) == 180)
        #expect(RandROutputs.degrees(8 | 16) == 270)
    }

    @Test func raisesComeAtMostEveryIntervalAndAnOwedOneComesDue() {
        var limiter = RaiseLimiter()
        let first = limiter.request(now: 1.0)
        let tooSoon = limiter.request(now: 1.01)
        #expect(first && !tooSoon)
        #expect(limiter.deadline == 1.0 + RaiseLimiter.minimumInterval)
        let notYet = limiter.due(now: 1.04)
        let owed = limiter.due(now: 1.05)
        #expect(!notYet && owed)
        #expect(limiter.deadline == nil)
        let later = limiter.request(now: 1.2)
        #expect(later)
    }
}

/// RandR's mode flag for interlaced modes (RR_Interlace), as the wire has it.
private enum XCBModeFlags {
    static let interlace: UInt32 = 16
}
