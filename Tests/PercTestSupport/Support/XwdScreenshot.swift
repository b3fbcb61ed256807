// Reads the screen with an independent tool: `xwd -root` parsed here (not the overlay's readPixels).
import Foundation

/// A screen dump in XWD format (X11/XWDFile.h): a big-endian 100-byte header of 25 CARD32s, the
/// window name up to `header_size`, `ncolors` × 12 bytes of colormap, then `height` ×
/// `bytes_per_line` bytes of ZPixmap pixels in the header's byte order.
public struct XWDImage: Sendable {
    public let width: Int
    public let height: Int
    private let bitsPerPixel: Int
    private let bytesPerLine: Int
    private let pixelsBigEndian: Bool
    private let masks: (red: UInt32, green: UInt32, blue: UInt32)
    private let pixels: [UInt8]

    public struct Malformed: Error, CustomStringConvertible { public var description: String }

    public init(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count >= 100 else { throw Malformed(description: "xwd wrote \(bytes.count) bytes, less than a header") }
        func field(_ i: Int) -> UInt32 {
            bytes[i * 4 ..< i * 4 + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let headerSize = Int(field(0))
        guard field(1) == 7, field(2) == 2 else {
            throw Malformed(description: "not a version-7 ZPixmap XWD file (version \(field(1)), format \(field(2)))")
        }
        width = Int(field(4))
        height = Int(field(5))
        pixelsBigEndian = field(7) != 0
        bitsPerPixel = Int(field(11))
        bytesPerLine = Int(field(12))
        masks = (field(14), field(15), field(16))
        let colours = Int(field(19))
        let start = headerSize + colours * 12
        guard bitsPerPixel == 32 || bitsPerPixel == 24, bytes.count >= start + height * bytesPerLine else {
            throw Malformed(description: "unexpected XWD layout: \(bitsPerPixel) bpp, \(bytes.count) bytes for \(height) lines of \(bytesPerLine)")
        }
        pixels = Array(bytes[start ..< start + height * bytesPerLine])
    }

    /// The pixel at (x, y) as 8-bit RGB (24-bit TrueColor masks).
    public func rgb(_ x: Int, _ y: Int) -> RGB {
        let size = bitsPerPixel / 8
        let offset = y * bytesPerLine + x * size
        let raw = pixels[offset ..< offset + size]
        let value = (pixelsBigEndian ? Array(raw) : raw.reversed()).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        func channel(_ mask: UInt32) -> UInt8 { UInt8((value & mask) >> UInt32(mask.trailingZeroBitCount) & 0xFF) }
        return RGB(channel(masks.red), channel(masks.green), channel(masks.blue))
    }
}

/// A colour as the tests compare it.
public struct RGB: Equatable, Sendable, CustomStringConvertible {
    public var r: UInt8, g: UInt8, b: UInt8
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { self.r = r; self.g = g; self.b = b }

    public static let white = RGB(255, 255, 255)
    public static let black = RGB(0, 0, 0)
    /// X's "grey50" (rgb.txt: 127 127 127), what `xsetroot -solid grey50` paints.
    public static let grey50 = RGB(127, 127, 127)

    public var description: String { "#" + [r, g, b].map { String(format: "%02X", $0) }.joined() }
}

extension Xvfb {
    /// The whole screen through `xwd -root -silent` (x11-apps).
    public func screenshot() throws -> XWDImage {
        let result = try run("/usr/bin/xwd", ["-root", "-silent"])
        guard result.status == 0 else { throw XWDImage.Malformed(description: "xwd failed (\(result.status)): \(result.stderr)") }
        return try XWDImage(result.stdout)
    }

    /// Paints the root window grey50 with `xsetroot` (x11-xserver-utils): a real client's pixels
    /// under the overlay.
    public func paintRootGrey() throws {
        let result = try run("/usr/bin/xsetroot", ["-solid", "grey50"])
        guard result.status == 0 else { throw XWDImage.Malformed(description: "xsetroot failed (\(result.status)): \(result.stderr)") }
    }

    /// Polls the screen until `condition` holds on a screenshot (up to `timeout` s); the last screenshot.
    public func screenshot(within timeout: Double, until condition: (XWDImage) -> Bool) throws -> XWDImage {
        let deadline = Date().addingTimeInterval(timeout)
        var image = try screenshot()
        while !condition(image), Date() < deadline {
            usleep(20_000)
            image = try screenshot()
        }
        return image
    }
}
