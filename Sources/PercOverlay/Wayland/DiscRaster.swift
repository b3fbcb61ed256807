// The discs of one frame painted into a premultiplied ARGB8888 buffer (pure): what the Wayland surface shows.

/// Paints `DiscLayout` arcs into 32-bit pixels: opaque black (0xFF000000) or opaque white
/// (0xFFFFFFFF) inside each disc, everything else fully transparent (0, premultiplied), so the app
/// below shows through unchanged. A pixel belongs to a disc when its centre is inside the circle,
/// the rule X's PolyFillArc follows closely enough for patches tens of pixels wide.
enum DiscRaster {
    static let black: UInt32 = 0xFF00_0000
    static let white: UInt32 = 0xFFFF_FFFF
    static let transparent: UInt32 = 0

    /// A rectangle in buffer pixels.
    struct Box: Equatable {
        var x: Int, y: Int, width: Int, height: Int
    }

    /// Clears `clear` (what this buffer showed before) and paints `layout`, whose coordinates are
    /// surface pixels, at `scale` buffer pixels per surface pixel. Returns the painted box (nil: nothing).
    static func paint(_ layout: DiscLayout, scale: Int, into pixels: UnsafeMutableBufferPointer<UInt32>,
                      width: Int, height: Int, clearing clear: Box?) -> Box? {
        if let clear { fill(clear, with: transparent, pixels, width: width, height: height) }
        for arc in layout.arcs {
            let r = Double(arc.diameter * scale) / 2
            let cx = Double(arc.x * scale) + r, cy = Double(arc.y * scale) + r
            let top = max(0, arc.y * scale), bottom = min(height, (arc.y + arc.diameter) * scale)
            let left = max(0, arc.x * scale), right = min(width, (arc.x + arc.diameter) * scale)
            guard top < bottom, left < right else { continue }
            let colour = arc.white ? white : black
            for y in top..<bottom {
                let dy = Double(y) + 0.5 - cy
                let row = y * width
                for x in left..<right {
                    let dx = Double(x) + 0.5 - cx
                    if dx * dx + dy * dy <= r * r { pixels[row + x] = colour }
                }
            }
        }
        guard let b = layout.bounds else { return nil }
        return clip(Box(x: b.x * scale, y: b.y * scale, width: b.width * scale, height: b.height * scale), width: width, height: height)
    }

    static func fill(_ box: Box, with value: UInt32, _ pixels: UnsafeMutableBufferPointer<UInt32>, width: Int, height: Int) {
        guard let b = clip(box, width: width, height: height) else { return }
        for y in b.y..<(b.y + b.height) {
            let start = y * width + b.x
            for i in start..<(start + b.width) { pixels[i] = value }
        }
    }

    static func clip(_ box: Box, width: Int, height: Int) -> Box? {
        let x0 = max(0, box.x), y0 = max(0, box.y)
        let x1 = min(width, box.x + box.width), y1 = min(height, box.y + box.height)
        return x1 > x0 && y1 > y0 ? Box(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }

    static func union(_ a: Box?, _ b: Box?) -> Box? {
        guard let a else { return b }
        guard let b else { return a }
        let x0 = min(a.x, b.x), y0 = min(a.y, b.y)
        return Box(x: x0, y: y0, width: max(a.x + a.width, b.x + b.width) - x0, height: max(a.y + a.height, b.y + b.height) - y0)
    }
}
