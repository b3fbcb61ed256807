// A second, plain X client for the tests: a solid window mapped and raised over the overlay.
import CXCB
import Glibc

/// An override-redirect window of one colour on its own xcb connection (another app on the table).
final class X11TestWindow {
    private let c: OpaquePointer
    let id: xcb_window_t

    struct Failed: Error, CustomStringConvertible { var description: String }

    init(display: String, x: Int, y: Int, width: Int, height: Int, white: Bool) throws {
        guard let c = xcb_connect(display, nil), xcb_connection_has_error(c) == 0,
              let screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data else {
            throw Failed(description: "the test window cannot connect to \(display)")
        }
        self.c = c
        id = xcb_generate_id(c)
        let values: [UInt32] = [white ? screen.pointee.white_pixel : screen.pointee.black_pixel, 1]
        xcb_create_window(c, UInt8(XCB_COPY_FROM_PARENT), id, screen.pointee.root, Int16(x), Int16(y), UInt16(width), UInt16(height), 0,
                          UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), screen.pointee.root_visual,
                          XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue, values)
        sync()
    }

    deinit { xcb_disconnect(c) }

    func map() {
        xcb_map_window(c, id)
        sync()
    }

    func raise() {
        let values: [UInt32] = [XCB_STACK_MODE_ABOVE.rawValue]
        xcb_configure_window(c, id, UInt16(XCB_CONFIG_WINDOW_STACK_MODE.rawValue), values)
        sync()
    }

    /// Waits until the server has run every request sent so far.
    private func sync() {
        free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), nil))
    }
}
