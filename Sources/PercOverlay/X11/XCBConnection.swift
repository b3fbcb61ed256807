// One xcb connection: opened with a one-line error, its screen, its extensions, replies read and freed once.
import CXCB
import Glibc
import Synchronization

/// An open xcb connection and the screen it was opened for.
///
/// The overlay's loop thread uses `raw` freely while it runs and is the one that `close()`s it
/// when it ends; any other thread goes through `withOpen`, which holds off `close()` meanwhile.
final class XCBConnection: @unchecked Sendable {
    // @unchecked: xcb connections are thread-safe; `open` guards the end of this one's life.
    let raw: OpaquePointer
    /// The display as the user named it (":0"), for messages.
    let displayName: String
    let root: xcb_window_t
    let rootVisual: xcb_visualid_t
    let rootDepth: UInt8
    let rootWidth: Int
    let rootHeight: Int
    let blackPixel: UInt32
    let whitePixel: UInt32
    /// How the root window's pixels read back; nil for visuals other than 16/24/32-bit TrueColor.
    let pixelFormat: PixelFormat?
    private let open = Mutex(true)

    /// Connects to `display` (nil or "": $DISPLAY).
    static func open(display: String?) throws(X11Error) -> XCBConnection {
        let name = try resolveDisplay(display, environment: getenv("DISPLAY").map { String(cString: $0) })
        var screenNumber: Int32 = 0
        guard let raw = xcb_connect(name, &screenNumber) else { throw connectError(code: 3, display: name) }
        let code = xcb_connection_has_error(raw)
        guard code == 0 else {
            xcb_disconnect(raw)
            throw connectError(code: code, display: name)
        }
        guard let setup = xcb_get_setup(raw), let screen = Self.screen(setup, number: Int(screenNumber)) else {
            xcb_disconnect(raw)
            throw X11Error("cannot open X display \(name): it announced no screen \(screenNumber); leave the screen number off (:0)")
        }
        return XCBConnection(raw: raw, displayName: name, setup: setup, screen: screen)
    }

    /// `screen` points into the setup xcb keeps for the connection's life (its depths and visuals
    /// follow the struct there, so it is read in place, never copied first).
    private init(raw: OpaquePointer, displayName: String, setup: UnsafePointer<xcb_setup_t>,
                 screen: UnsafeMutablePointer<xcb_screen_t>) {
        self.raw = raw
        self.displayName = displayName
        root = screen.pointee.root
        rootVisual = screen.pointee.root_visual
        rootDepth = screen.pointee.root_depth
        rootWidth = Int(screen.pointee.width_in_pixels)
        rootHeight = Int(screen.pointee.height_in_pixels)
        blackPixel = screen.pointee.black_pixel
        whitePixel = screen.pointee.white_pixel
        pixelFormat = Self.pixelFormat(setup, screen: screen)
    }

    deinit { close() }

    /// The display to connect to: the caller's, else $DISPLAY; a clear error when neither is set.
    static func resolveDisplay(_ display: String?, environment: String?) throws(X11Error) -> String {
        if let display, !display.isEmpty { return display }
        if let environment, !environment.isEmpty { return environment }
        throw X11Error("no X display: DISPLAY is not set; run it in the table's graphical session or pass --display :0")
    }

    /// xcb_connect's error codes (XCB_CONN_*) as one line that says what to do.
    static func connectError(code: Int32, display: String) -> X11Error {
        let reason = switch code {
        case XCB_CONN_ERROR:
            "no X server answers there, or it refused this user; check the display number (ls /tmp/.X11-unix) and that XAUTHORITY lets this user in"
        case XCB_CONN_CLOSED_PARSE_ERR:
            "that is not a display name; pass one like :0"
        case XCB_CONN_CLOSED_INVALID_SCREEN:
            "the server has no such screen; leave the screen number off (:0)"
        case XCB_CONN_CLOSED_MEM_INSUFFICIENT:
            "out of memory"
        default:
            "xcb error \(code); check that the X server runs and accepts this user"
        }
        return X11Error("cannot open X display \(display): \(reason)")
    }

    /// Why the connection broke, as `onLost` reports it; nil while it is fine.
    func failure() -> X11Error? {
        let code = xcb_connection_has_error(raw)
        guard code != 0 else { return nil }
        let reason = code == XCB_CONN_ERROR
            ? "the X server closed the connection (it ended or was restarted)"
            : "xcb error \(code) on the connection"
        return X11Error("lost X display \(displayName): \(reason); start the overlay again once the display is back")
    }

    /// Runs `body` with the connection unless it is closed; `close()` waits meanwhile.
    func withOpen<T: Sendable>(_ body: (OpaquePointer) throws(X11Error) -> T) throws(X11Error) -> T {
        let result: Result<T, X11Error> = open.withLock { isOpen in
            guard isOpen else { return .failure(X11Error("the overlay on X display \(displayName) is stopped")) }
            do throws(X11Error) { return .success(try body(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Disconnects (idempotent).
    func close() {
        open.withLock { isOpen in
            guard isOpen else { return }
            isOpen = false
            xcb_disconnect(raw)
        }
    }

    // MARK: - Replies

    /// Waits for one reply, reads what is needed from it and frees it. A protocol error or a broken
    /// connection becomes an X11Error naming `what` was asked.
    func reply<Reply, T>(_ what: String,
                         _ wait: (OpaquePointer, UnsafeMutablePointer<UnsafeMutablePointer<xcb_generic_error_t>?>) -> UnsafeMutablePointer<Reply>?,
                         read: (UnsafePointer<Reply>) -> T) throws(X11Error) -> T {
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let reply = wait(raw, &error)
        defer { free(reply); free(error) }
        if let error {
            throw X11Error("X display \(displayName) refused \(what): X error \(error.pointee.error_code)")
        }
        guard let reply else {
            throw failure() ?? X11Error("X display \(displayName) gave no answer to \(what)")
        }
        return read(reply)
    }

    /// Sends nothing more and waits for a checked request's outcome.
    func check(_ what: String, _ cookie: xcb_void_cookie_t) throws(X11Error) {
        guard let error = xcb_request_check(raw, cookie) else {
            if let failure = failure() { throw failure }
            return
        }
        defer { free(error) }
        throw X11Error("X display \(displayName) refused \(what): X error \(error.pointee.error_code)")
    }

    // MARK: - Extensions

    /// The major opcode of an extension the server has (xcb caches the query).
    func extensionOpcode(_ query: (OpaquePointer) -> UnsafePointer<xcb_query_extension_reply_t>?) -> UInt8? {
        guard let data = query(raw), data.pointee.present != 0 else { return nil }
        return data.pointee.major_opcode
    }

    // MARK: - Setup

    private static func screen(_ setup: UnsafePointer<xcb_setup_t>, number: Int) -> UnsafeMutablePointer<xcb_screen_t>? {
        var iterator = xcb_setup_roots_iterator(setup)
        var index = 0
        while iterator.rem > 0 {
            if index == number, let data = iterator.data { return data }
            xcb_screen_next(&iterator)
            index += 1
        }
        return nil
    }

    private static func pixelFormat(_ setup: UnsafePointer<xcb_setup_t>, screen: UnsafeMutablePointer<xcb_screen_t>) -> PixelFormat? {
        guard let visual = visualType(screen, id: screen.pointee.root_visual),
              visual._class == UInt8(XCB_VISUAL_CLASS_TRUE_COLOR.rawValue) || visual._class == UInt8(XCB_VISUAL_CLASS_DIRECT_COLOR.rawValue),
              let formats = xcb_setup_pixmap_formats(setup) else { return nil }
        let count = Int(xcb_setup_pixmap_formats_length(setup))
        guard let format = (0..<count).map({ formats[$0] }).first(where: { $0.depth == screen.pointee.root_depth }) else { return nil }
        return PixelFormat(bitsPerPixel: Int(format.bits_per_pixel),
                           bigEndian: setup.pointee.image_byte_order == UInt8(XCB_IMAGE_ORDER_MSB_FIRST.rawValue),
                           redMask: visual.red_mask, greenMask: visual.green_mask, blueMask: visual.blue_mask)
    }

    private static func visualType(_ screen: UnsafeMutablePointer<xcb_screen_t>, id: xcb_visualid_t) -> xcb_visualtype_t? {
        var depths = xcb_screen_allowed_depths_iterator(screen)
        while depths.rem > 0 {
            if let depth = depths.data {
                var visuals = xcb_depth_visuals_iterator(depth)
                while visuals.rem > 0 {
                    if let visual = visuals.data, visual.pointee.visual_id == id { return visual.pointee }
                    xcb_visualtype_next(&visuals)
                }
            }
            xcb_depth_next(&depths)
        }
        return nil
    }
}
