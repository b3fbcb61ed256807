// The overlay's window: override-redirect, root-sized, shaped to the discs, no input region.
import CXCB
import Glibc

/// The window and its graphics contexts; the requests that make up one frame.
///
/// - Unmanaged: `override_redirect` keeps window managers away (no frame, no focus) and lets it
///   stack above managed windows.
/// - Its BOUNDING shape is exactly the discs (a 1-bit mask with filled arcs): outside them the app
///   below shows, opaque, with no compositor needed.
/// - Its INPUT shape is empty, set once: every press, touch and motion goes to the window below.
/// - The colours are the screen's black and white pixels (0x000000 and 0xFFFFFF on TrueColor).
struct OverlayWindow {
    let c: OpaquePointer
    let id: xcb_window_t
    let root: xcb_window_t
    let rootWidth: Int
    let rootHeight: Int
    private let blackGC: xcb_gcontext_t
    private let whiteGC: xcb_gcontext_t
    /// Paint 0 and 1 into the 1-bit mask.
    private let maskClearGC: xcb_gcontext_t
    private let maskSetGC: xcb_gcontext_t
    /// One id for the per-frame mask pixmap, created and freed each frame.
    private let maskID: xcb_pixmap_t

    /// What the window listens to: Expose to repaint after another window uncovered it, Visibility
    /// to notice being covered.
    static let windowEvents = XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_VISIBILITY_CHANGE.rawValue

    /// Creates the window (unmapped, empty in both shapes) and its contexts; the creation and the
    /// shapes are checked, so a server that refuses them fails here and not on the first frame.
    static func create(on connection: XCBConnection) throws(X11Error) -> OverlayWindow {
        let c = connection.raw
        let id = xcb_generate_id(c)
        let attributes: [UInt32] = [connection.blackPixel, 1, windowEvents]
        try connection.check("creating the overlay window", xcb_create_window_checked(
            c, UInt8(XCB_COPY_FROM_PARENT), id, connection.root, 0, 0,
            UInt16(clamping: connection.rootWidth), UInt16(clamping: connection.rootHeight), 0,
            UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), connection.rootVisual,
            XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue | XCB_CW_EVENT_MASK.rawValue, attributes))
        let name = Array("percbridge overlay".utf8)
        xcb_change_property(c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), id, XCB_ATOM_WM_NAME.rawValue,
                            XCB_ATOM_STRING.rawValue, 8, UInt32(name.count), name)
        try connection.check("emptying the overlay's input shape (SHAPE 1.1)", xcb_shape_rectangles_checked(
            c, xcb_shape_op_t(XCB_SHAPE_SO_SET.rawValue), xcb_shape_kind_t(XCB_SHAPE_SK_INPUT.rawValue),
            UInt8(XCB_CLIP_ORDERING_UNSORTED.rawValue), id, 0, 0, 0, nil))
        try connection.check("emptying the overlay's bounding shape", xcb_shape_rectangles_checked(
            c, xcb_shape_op_t(XCB_SHAPE_SO_SET.rawValue), xcb_shape_kind_t(XCB_SHAPE_SK_BOUNDING.rawValue),
            UInt8(XCB_CLIP_ORDERING_UNSORTED.rawValue), id, 0, 0, 0, nil))
        // Mask GCs must be made on a 1-bit drawable; they then serve every 1-bit pixmap of the screen.
        let maskID = xcb_generate_id(c)
        xcb_create_pixmap(c, 1, maskID, connection.root, 1, 1)
        let window = OverlayWindow(
            c: c, id: id, root: connection.root, rootWidth: connection.rootWidth, rootHeight: connection.rootHeight,
            blackGC: gc(c, on: connection.root, foreground: connection.blackPixel),
            whiteGC: gc(c, on: connection.root, foreground: connection.whitePixel),
            maskClearGC: gc(c, on: maskID, foreground: 0),
            maskSetGC: gc(c, on: maskID, foreground: 1),
            maskID: maskID)
        xcb_free_pixmap(c, maskID)
        return window
    }

    private static func gc(_ c: OpaquePointer, on drawable: xcb_drawable_t, foreground: UInt32) -> xcb_gcontext_t {
        let id = xcb_generate_id(c)
        // No GraphicsExpose/NoExpose events: nothing here copies areas.
        let values: [UInt32] = [foreground, 0]
        xcb_create_gc(c, id, drawable, XCB_GC_FOREGROUND.rawValue | XCB_GC_GRAPHICS_EXPOSURES.rawValue, values)
        return id
    }

    /// Asks Present to send this window's CompleteNotify events to this connection.
    func selectPresentEvents() {
        xcb_present_select_input(c, xcb_generate_id(c), id, XCB_PRESENT_EVENT_MASK_COMPLETE_NOTIFY.rawValue)
    }

    /// Maps the window; it appears on top of its siblings.
    func map() { xcb_map_window(c, id) }

    /// Puts the window back on top of its siblings.
    func raise() {
        let values: [UInt32] = [XCB_STACK_MODE_ABOVE.rawValue]
        xcb_configure_window(c, id, UInt16(XCB_CONFIG_WINDOW_STACK_MODE.rawValue), values)
    }

    /// Makes the bounding shape exactly `layout`'s discs (nothing at all for an empty layout). The
    /// mask covers only the discs' bounding box, so the server scans no more than that.
    func setShape(_ layout: DiscLayout) {
        guard let box = layout.bounds else {
            xcb_shape_rectangles(c, xcb_shape_op_t(XCB_SHAPE_SO_SET.rawValue), xcb_shape_kind_t(XCB_SHAPE_SK_BOUNDING.rawValue),
                                 UInt8(XCB_CLIP_ORDERING_UNSORTED.rawValue), id, 0, 0, 0, nil)
            return
        }
        xcb_create_pixmap(c, 1, maskID, root, UInt16(box.width), UInt16(box.height))
        var all = xcb_rectangle_t(x: 0, y: 0, width: UInt16(box.width), height: UInt16(box.height))
        xcb_poly_fill_rectangle(c, maskID, maskClearGC, 1, &all)
        let arcs = layout.arcs.map { Self.xArc($0, dx: -box.x, dy: -box.y, grow: 0) }
        xcb_poly_fill_arc(c, maskID, maskSetGC, UInt32(arcs.count), arcs)
        xcb_shape_mask(c, xcb_shape_op_t(XCB_SHAPE_SO_SET.rawValue), xcb_shape_kind_t(XCB_SHAPE_SK_BOUNDING.rawValue),
                       id, Int16(box.x), Int16(box.y), maskID)
        xcb_free_pixmap(c, maskID)
    }

    /// Paints the discs in their colours, in the caller's order. Each is painted one pixel larger
    /// than its shape: the shape clips it, and no edge pixel is left in the background colour
    /// should the server round the two arcs differently.
    func paint(_ layout: DiscLayout) {
        for run in layout.colourRuns {
            let arcs = run.arcs.map { Self.xArc($0, dx: 0, dy: 0, grow: 1) }
            xcb_poly_fill_arc(c, id, run.white ? whiteGC : blackGC, UInt32(arcs.count), arcs)
        }
    }

    /// Destroys the window (its shapes go with it); the GCs go with the connection.
    func destroy() { xcb_destroy_window(c, id) }

    private static func xArc(_ arc: DiscLayout.Arc, dx: Int, dy: Int, grow: Int) -> xcb_arc_t {
        xcb_arc_t(x: Int16(clamping: arc.x + dx - grow), y: Int16(clamping: arc.y + dy - grow),
                  width: UInt16(clamping: arc.diameter + 2 * grow), height: UInt16(clamping: arc.diameter + 2 * grow),
                  angle1: 0, angle2: 360 * 64)
    }
}
