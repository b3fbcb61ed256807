// The X events the overlay acts on, read out of xcb's structs once.
import CXCB

/// One event from the connection, as the overlay loop needs it.
enum X11Event: Equatable {
    /// Part of `window` needs repainting; `remaining` more Expose events follow.
    case exposed(window: xcb_window_t, remaining: Int)
    case visibility(window: xcb_window_t, unobscured: Bool)
    /// A child of `parent` was mapped (on top of its siblings).
    case mapped(parent: xcb_window_t, window: xcb_window_t)
    /// A child of `parent` was configured; it now lies directly above `above` (0: at the bottom).
    case restacked(parent: xcb_window_t, window: xcb_window_t, above: xcb_window_t)
    case circulatedToTop(parent: xcb_window_t, window: xcb_window_t)
    /// Present's CompleteNotify for a NotifyMSC request: `ust` in microseconds.
    case presentCompleted(window: xcb_window_t, serial: UInt32, ust: UInt64)
    case error(code: UInt8, major: UInt8, minor: UInt16)
    case other

    init(_ event: UnsafePointer<xcb_generic_event_t>, presentOpcode: UInt8?) {
        let raw = UnsafeRawPointer(event)
        switch Int32(event.pointee.response_type & 0x7f) {
        case 0:
            let e = raw.load(as: xcb_generic_error_t.self)
            self = .error(code: e.error_code, major: e.major_code, minor: e.minor_code)
        case XCB_EXPOSE:
            let e = raw.load(as: xcb_expose_event_t.self)
            self = .exposed(window: e.window, remaining: Int(e.count))
        case XCB_VISIBILITY_NOTIFY:
            let e = raw.load(as: xcb_visibility_notify_event_t.self)
            self = .visibility(window: e.window, unobscured: e.state == UInt8(XCB_VISIBILITY_UNOBSCURED.rawValue))
        case XCB_MAP_NOTIFY:
            let e = raw.load(as: xcb_map_notify_event_t.self)
            self = .mapped(parent: e.event, window: e.window)
        case XCB_CONFIGURE_NOTIFY:
            let e = raw.load(as: xcb_configure_notify_event_t.self)
            self = .restacked(parent: e.event, window: e.window, above: e.above_sibling)
        case XCB_CIRCULATE_NOTIFY:
            let e = raw.load(as: xcb_circulate_notify_event_t.self)
            self = e.place == UInt8(XCB_PLACE_ON_TOP.rawValue) ? .circulatedToTop(parent: e.event, window: e.window) : .other
        case XCB_GE_GENERIC:
            self = Self.present(event, opcode: presentOpcode)
        default:
            self = .other
        }
    }

    private static func present(_ event: UnsafePointer<xcb_generic_event_t>, opcode: UInt8?) -> X11Event {
        var complete = percbridge_present_complete_t()
        guard let opcode, percbridge_present_complete(event, opcode, &complete) != 0,
              complete.kind == UInt8(XCB_PRESENT_COMPLETE_KIND_NOTIFY_MSC.rawValue) else { return .other }
        return .presentCompleted(window: complete.window, serial: complete.serial, ust: complete.ust)
    }
}
