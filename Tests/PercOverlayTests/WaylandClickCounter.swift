// Test peers for the click-through test: an app under the overlay that counts the presses it gets, and a
// virtual pointer (wlr-virtual-pointer) that clicks, each on its own connection to the compositor.
import CWayland
import CWaylandProtocols
import Foundation
@testable import PercOverlay

/// A fullscreen xdg_toplevel painted one opaque colour that counts wl_pointer button presses and
/// remembers where the pointer was (surface pixels). Driven by `pump()` on the test's thread.
final class WaylandClickCounter {
    let display: OpaquePointer
    private let globals = WaylandGlobals()
    private var compositor, shm, wmBase, seat, surface, xdgSurface, toplevel, pointer: OpaquePointer?
    private var buffer: ShmBuffer?
    private var configureSerial: UInt32?
    private var size = (width: Int32(0), height: Int32(0))
    private(set) var presses = 0
    private(set) var pointerAt: (x: Double, y: Double)?
    private(set) var pressedAt: [(x: Double, y: Double)] = []
    static let colour: UInt32 = 0xFF20_4080

    init(socketPath: String) throws {
        guard let d = wl_display_connect(socketPath) else { throw WaylandError("test app: cannot connect to \(socketPath)") }
        display = d
        guard let registry = wl_display_get_registry(d) else { throw WaylandError("test app: no registry") }
        globals.listen(to: registry)
        wl_display_roundtrip(d)
        func bind(_ name: String, _ iface: UnsafePointer<wl_interface>, _ version: UInt32) throws -> OpaquePointer {
            guard let g = globals.first(name), let p = wl_registry_bind(registry, g.name, iface, min(g.version, version)) else {
                throw WaylandError("test app: the compositor has no \(name)")
            }
            return OpaquePointer(p)
        }
        compositor = try bind("wl_compositor", percbridge_wl_compositor_interface(), 4)
        shm = try bind("wl_shm", percbridge_wl_shm_interface(), 1)
        wmBase = try bind("xdg_wm_base", percbridge_xdg_wm_base_interface(), 1)
        seat = try bind("wl_seat", percbridge_wl_seat_interface(), 5)
        let me = Unmanaged.passUnretained(self).toOpaque()
        xdg_wm_base_add_listener(wmBase, Self.wmBaseListener, me)
        wl_seat_add_listener(seat, Self.seatListener, me)
        surface = wl_compositor_create_surface(compositor)
        xdgSurface = xdg_wm_base_get_xdg_surface(wmBase, surface)
        xdg_surface_add_listener(xdgSurface, Self.xdgSurfaceListener, me)
        toplevel = xdg_surface_get_toplevel(xdgSurface)
        xdg_toplevel_add_listener(toplevel, Self.toplevelListener, me)
        xdg_toplevel_set_title(toplevel, "click counter")
        xdg_toplevel_set_fullscreen(toplevel, nil)
        wl_surface_commit(surface)
        // sway configures a new toplevel without a size; once it is mapped (first buffer), it sends
        // the fullscreen size.
        for _ in 0..<10 where configureSerial == nil { wl_display_roundtrip(d) }
        guard let first = configureSerial else { throw WaylandError("test app: no configure") }
        xdg_surface_ack_configure(xdgSurface, first)
        configureSerial = nil
        if size.width <= 0 || size.height <= 0 { size = (64, 64) }
        try paint()
        let painted = size
        for _ in 0..<10 where configureSerial == nil || size == painted { wl_display_roundtrip(d) }
        if let serial = configureSerial {
            xdg_surface_ack_configure(xdgSurface, serial)
            configureSerial = nil
            try paint()
        }
        wl_display_roundtrip(d)
    }

    private func paint() throws {
        guard let shm else { throw WaylandError("test app: no wl_shm") }
        let b = try ShmBuffer(shm: shm, width: Int(size.width), height: Int(size.height), listener: Self.bufferListener,
                              data: Unmanaged.passUnretained(self).toOpaque())
        b.pixels.update(repeating: Self.colour)
        wl_surface_attach(surface, b.proxy, 0, 0)
        wl_surface_damage_buffer(surface, 0, 0, size.width, size.height)
        wl_surface_commit(surface)
        wl_display_roundtrip(display)
        buffer = b
    }

    deinit {
        if let pointer { wl_pointer_destroy(pointer) }
        if let toplevel { xdg_toplevel_destroy(toplevel) }
        if let xdgSurface { xdg_surface_destroy(xdgSurface) }
        if let surface { wl_surface_destroy(surface) }
        buffer = nil
        wl_display_disconnect(display)
    }

    /// True once the app has a wl_pointer (the seat got one when the virtual pointer appeared).
    var hasPointer: Bool { pointer != nil }

    /// One round trip: every event the compositor sent so far is handled (a late configure acknowledged).
    func pump() {
        wl_display_roundtrip(display)
        if let serial = configureSerial {
            xdg_surface_ack_configure(xdgSurface, serial)
            configureSerial = nil
            try? paint()
        }
    }

    private static func me(_ data: UnsafeMutableRawPointer?) -> WaylandClickCounter? {
        data.map { Unmanaged<WaylandClickCounter>.fromOpaque($0).takeUnretainedValue() }
    }

    nonisolated(unsafe) private static let wmBaseListener: UnsafeMutablePointer<xdg_wm_base_listener> = {
        let p = UnsafeMutablePointer<xdg_wm_base_listener>.allocate(capacity: 1)
        p.initialize(to: xdg_wm_base_listener(ping: { _, base, serial in xdg_wm_base_pong(base, serial) }))
        return p
    }()

    nonisolated(unsafe) private static let xdgSurfaceListener: UnsafeMutablePointer<xdg_surface_listener> = {
        let p = UnsafeMutablePointer<xdg_surface_listener>.allocate(capacity: 1)
        p.initialize(to: xdg_surface_listener(configure: { data, _, serial in
            guard let c = me(data) else { return }
            c.configureSerial = serial
        }))
        return p
    }()

    nonisolated(unsafe) private static let toplevelListener: UnsafeMutablePointer<xdg_toplevel_listener> = {
        let p = UnsafeMutablePointer<xdg_toplevel_listener>.allocate(capacity: 1)
        p.initialize(to: xdg_toplevel_listener(
            configure: { data, _, w, h, _ in
                guard let c = me(data), w > 0, h > 0 else { return }
                c.size = (w, h)
            },
            close: { _, _ in }, configure_bounds: { _, _, _, _ in }, wm_capabilities: { _, _, _ in }))
        return p
    }()

    nonisolated(unsafe) private static let seatListener: UnsafeMutablePointer<wl_seat_listener> = {
        let p = UnsafeMutablePointer<wl_seat_listener>.allocate(capacity: 1)
        p.initialize(to: wl_seat_listener(
            capabilities: { data, seat, caps in
                guard let c = me(data), caps & WL_SEAT_CAPABILITY_POINTER.rawValue != 0, c.pointer == nil,
                      let pointer = wl_seat_get_pointer(seat) else { return }
                c.pointer = pointer
                wl_pointer_add_listener(pointer, WaylandClickCounter.pointerListener, data)
            },
            name: { _, _, _ in }))
        return p
    }()

    nonisolated(unsafe) private static let pointerListener: UnsafeMutablePointer<wl_pointer_listener> = {
        let p = UnsafeMutablePointer<wl_pointer_listener>.allocate(capacity: 1)
        p.initialize(to: wl_pointer_listener(
            enter: { data, _, _, _, x, y in me(data)?.pointerAt = (wl_fixed_to_double(x), wl_fixed_to_double(y)) },
            leave: { data, _, _, _ in me(data)?.pointerAt = nil },
            motion: { data, _, _, x, y in me(data)?.pointerAt = (wl_fixed_to_double(x), wl_fixed_to_double(y)) },
            button: { data, _, _, _, _, state in
                guard let c = me(data), state == WL_POINTER_BUTTON_STATE_PRESSED.rawValue else { return }
                c.presses += 1
                if let at = c.pointerAt { c.pressedAt.append(at) }
            },
            axis: { _, _, _, _, _ in }, frame: { _, _ in }, axis_source: { _, _, _ in }, axis_stop: { _, _, _, _ in },
            axis_discrete: { _, _, _, _ in }, axis_value120: { _, _, _, _ in }))
        return p
    }()

    nonisolated(unsafe) private static let bufferListener: UnsafeMutablePointer<wl_buffer_listener> = {
        let p = UnsafeMutablePointer<wl_buffer_listener>.allocate(capacity: 1)
        p.initialize(to: wl_buffer_listener(release: { _, _ in }))
        return p
    }()
}

/// A virtual pointer on the compositor's seat (zwlr_virtual_pointer_v1, as wlrctl uses): the
/// compositor treats its events like a mouse's.
final class WaylandVirtualPointer {
    let display: OpaquePointer
    private let globals = WaylandGlobals()
    private var manager, pointer: OpaquePointer?
    private var time: UInt32 = 1
    static let leftButton: UInt32 = 0x110  // BTN_LEFT

    init(socketPath: String) throws {
        guard let d = wl_display_connect(socketPath) else { throw WaylandError("test pointer: cannot connect to \(socketPath)") }
        display = d
        guard let registry = wl_display_get_registry(d) else { throw WaylandError("test pointer: no registry") }
        globals.listen(to: registry)
        wl_display_roundtrip(d)
        guard let g = globals.first("zwlr_virtual_pointer_manager_v1"),
              let m = wl_registry_bind(registry, g.name, percbridge_zwlr_virtual_pointer_manager_v1_interface(), 1) else {
            throw WaylandError("test pointer: the compositor has no zwlr_virtual_pointer_manager_v1")
        }
        manager = OpaquePointer(m)
        pointer = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(manager, nil)
        wl_display_roundtrip(d)
    }

    deinit {
        if let pointer { zwlr_virtual_pointer_v1_destroy(pointer) }
        wl_display_disconnect(display)
    }

    /// Moves to (x, y) of a layout `width`×`height` pixels and clicks the left button.
    func click(x: UInt32, y: UInt32, width: UInt32, height: UInt32) {
        zwlr_virtual_pointer_v1_motion_absolute(pointer, tick(), x, y, width, height)
        zwlr_virtual_pointer_v1_frame(pointer)
        zwlr_virtual_pointer_v1_button(pointer, tick(), Self.leftButton, WL_POINTER_BUTTON_STATE_PRESSED.rawValue)
        zwlr_virtual_pointer_v1_frame(pointer)
        zwlr_virtual_pointer_v1_button(pointer, tick(), Self.leftButton, WL_POINTER_BUTTON_STATE_RELEASED.rawValue)
        zwlr_virtual_pointer_v1_frame(pointer)
        wl_display_roundtrip(display)
    }

    private func tick() -> UInt32 {
        time += 10
        return time
    }
}
