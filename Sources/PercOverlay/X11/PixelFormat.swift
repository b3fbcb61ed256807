// How a ZPixmap pixel of a TrueColor visual turns into 8-bit RGB (pure).

/// The layout of one ZPixmap pixel: its size, its byte order and the visual's channel masks.
struct PixelFormat: Equatable {
    var bitsPerPixel: Int
    /// The server's image byte order (X's MSBFirst = true).
    var bigEndian: Bool
    var redMask: UInt32
    var greenMask: UInt32
    var blueMask: UInt32

    /// The pixel that starts at `bytes[0]`, as 8-bit channels; nil for sizes other than 16, 24, 32 bits
    /// or too few bytes.
    func rgb(_ bytes: UnsafeRawBufferPointer) -> (r: UInt8, g: UInt8, b: UInt8)? {
        let count = bitsPerPixel / 8
        guard [2, 3, 4].contains(count), bitsPerPixel % 8 == 0, bytes.count >= count else { return nil }
        var pixel: UInt32 = 0
        for i in 0..<count {
            let byte = UInt32(bytes[bigEndian ? i : count - 1 - i])
            pixel = pixel << 8 | byte
        }
        return (Self.channel(pixel, redMask), Self.channel(pixel, greenMask), Self.channel(pixel, blueMask))
    }

    /// The bits under `mask`, scaled to 0...255 (a 5-bit channel's 31 becomes 255).
    static func channel(_ pixel: UInt32, _ mask: UInt32) -> UInt8 {
        guard mask != 0 else { return 0 }
        let shift = mask.trailingZeroBitCount
        let maximum = UInt64(mask >> shift)
        let value = UInt64((pixel & mask) >> shift)
        return UInt8((value * 255 + maximum / 2) / maximum)
    }
}
