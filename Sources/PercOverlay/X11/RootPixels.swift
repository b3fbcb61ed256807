// Reads root-window pixels back (GetImage, ZPixmap): for tests and `demo --display screen`.
import CXCB
import Glibc

/// A few pixels of what the screen shows, read through the overlay's own connection.
enum RootPixels {
    /// More than any check needs; bounds the requests one call sends.
    static let maxPoints = 4096

    /// One 1×1 GetImage per point, all sent before the first reply is awaited.
    static func read(_ points: [(x: Int, y: Int)], from connection: XCBConnection, c: OpaquePointer)
        throws(X11Error) -> [(r: UInt8, g: UInt8, b: UInt8)] {
        guard let format = connection.pixelFormat else {
            throw X11Error("cannot read colours on X display \(connection.displayName): its root visual is not 16/24/32-bit TrueColor")
        }
        guard points.count <= maxPoints else {
            throw X11Error("readPixels takes at most \(maxPoints) points at once, not \(points.count)")
        }
        for p in points where p.x < 0 || p.y < 0 || p.x >= connection.rootWidth || p.y >= connection.rootHeight {
            throw X11Error("pixel (\(p.x), \(p.y)) is outside the \(connection.rootWidth)×\(connection.rootHeight) screen of X display \(connection.displayName)")
        }
        let cookies = points.map { p in
            xcb_get_image(c, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), connection.root, Int16(p.x), Int16(p.y), 1, 1, .max)
        }
        var pixels: [(r: UInt8, g: UInt8, b: UInt8)] = []
        pixels.reserveCapacity(points.count)
        for (i, cookie) in cookies.enumerated() {
            do throws(X11Error) {
                let pixel = try connection.reply("GetImage at (\(points[i].x), \(points[i].y))") { c, e in
                    xcb_get_image_reply(c, cookie, e)
                } read: { reply in
                    decode(reply, format: format)
                }
                guard let pixel else {
                    throw X11Error("X display \(connection.displayName) sent a pixel of an unexpected size at (\(points[i].x), \(points[i].y))")
                }
                pixels.append(pixel)
            } catch {
                // Replies nobody waits for would stay in xcb's queue.
                for rest in cookies[(i + 1)...] { xcb_discard_reply(c, rest.sequence) }
                throw error
            }
        }
        return pixels
    }

    private static func decode(_ reply: UnsafePointer<xcb_get_image_reply_t>, format: PixelFormat) -> (r: UInt8, g: UInt8, b: UInt8)? {
        guard let data = xcb_get_image_data(reply) else { return nil }
        let length = Int(xcb_get_image_data_length(reply))
        return format.rgb(UnsafeRawBufferPointer(start: data, count: length))
    }
}
