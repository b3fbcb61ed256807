// The overlay's start on Wayland: the globals it needs, the outputs, the layer surface up to its first configure.
import CWayland
import CWaylandProtocols
import Glibc

/// Everything bound and created before the overlay's thread takes over; each step throws one line.
/// Runs on the caller's thread with blocking round trips (a compositor answers them at once).
final class WaylandSetup {
    let display: OpaquePointer
    let name: String
    private(set) var registry: OpaquePointer?
    private(set) var compositor: OpaquePointer?
    private(set) var shm: OpaquePointer?
    private(set) var layerShell: OpaquePointer?
    private(set) var presentation: OpaquePointer?
    private(set) var xdgOutputManager: OpaquePointer?
    private(set) var outputs: [WaylandOutputInfo] = []
    private(set) var surface: OpaquePointer?
    private(set) var layerSurface: OpaquePointer?
    /// Set by wp_presentation's `clock_id` event.
    var clockID: Int32 = CLOCK_MONOTONIC
    /// Set by the layer surface's configure events until the loop takes over.
    var configure: (serial: UInt32, width: Int, height: Int)?
    var closed = false

    /// The layer the overlay draws on (zwlr_layer_shell_v1.layer.overlay) and its four edges.
    static let overlayLayer: UInt32 = 3
    static let allEdges: UInt32 = 1 | 2 | 4 | 8

    init(display: OpaquePointer, name: String) {
        self.display = display
        self.name = name
    }

    func bindGlobals() throws(WaylandError) {
        let globals = WaylandGlobals()
        guard let registry = wl_display_get_registry(display) else { throw WaylandError("Wayland display \(name): no registry") }
        self.registry = registry
        globals.listen(to: registry)
        try roundTrip("listing the compositor's globals")
        func bind(_ interface: String, _ description: UnsafePointer<wl_interface>, upTo version: UInt32) -> OpaquePointer? {
            guard let g = globals.first(interface) else { return nil }
            return OpaquePointer(wl_registry_bind(registry, g.name, description, min(g.version, version)))
        }
        guard let c = globals.first("wl_compositor"), c.version >= 4 else {
            throw WaylandError("the Wayland compositor on \(name) offers no wl_compositor version 4 (damage in buffer pixels); use a current compositor (sway, labwc, KDE)")
        }
        compositor = bind("wl_compositor", percbridge_wl_compositor_interface(), upTo: 4)
        shm = bind("wl_shm", percbridge_wl_shm_interface(), upTo: 1)
        guard shm != nil else { throw WaylandError("the Wayland compositor on \(name) offers no wl_shm; the overlay draws into shared memory") }
        layerShell = bind("zwlr_layer_shell_v1", percbridge_zwlr_layer_shell_v1_interface(), upTo: 4)
        guard layerShell != nil else {
            throw WaylandError("the Wayland compositor on \(name) has no layer shell (zwlr_layer_shell_v1; GNOME has none), so the overlay cannot draw above its windows: run the overlay through XWayland with --display :0 (the compositor may stack windows above it), or run the table on a compositor with layer shell (sway, labwc, KDE Plasma, Hyprland) — docs/overlay.md, Wayland")
        }
        presentation = bind("wp_presentation", percbridge_wp_presentation_interface(), upTo: 1)
        if let presentation {
            wp_presentation_add_listener(presentation, Self.presentationListener, Unmanaged.passUnretained(self).toOpaque())
        }
        for g in globals.all("wl_output").prefix(16) {
            guard let proxy = wl_registry_bind(registry, g.name, percbridge_wl_output_interface(), min(g.version, 4)) else { continue }
            outputs.append(WaylandOutputInfo(proxy: OpaquePointer(proxy), globalName: g.name))
        }
        xdgOutputManager = bind("zxdg_output_manager_v1", percbridge_zxdg_output_manager_v1_interface(), upTo: 3)
        if let xdgOutputManager { outputs.forEach { $0.describe(with: xdgOutputManager) } }
        // Outputs send their description (and wp_presentation its clock) after the bind.
        try roundTrip("reading the outputs")
    }

    /// The index of the output named `name` (nil: the first).
    func chooseOutput(_ wanted: String?) throws(WaylandError) -> Int {
        guard !outputs.isEmpty else { throw WaylandError("the Wayland compositor on \(name) has no outputs: connect a screen, or give the headless compositor one") }
        guard let wanted else { return 0 }
        let names = outputs.enumerated().map { $1.screenOutput(index: $0).name }
        guard let i = names.firstIndex(of: wanted) else {
            var e = WaylandError("no output named \(wanted); this compositor has \(names.joined(separator: ", "))")
            e.unavailable = false
            throw e
        }
        return i
    }

    /// The layer surface on `outputs[index]`, configured (acknowledged) and with an empty input region.
    func createSurface(on index: Int, clickThrough: Bool = true) throws(WaylandError) {
        guard let compositor, let layerShell, let surface = wl_compositor_create_surface(compositor) else {
            throw WaylandError("the Wayland compositor on \(name) did not create a surface")
        }
        self.surface = surface
        if clickThrough {
            let region = wl_compositor_create_region(compositor)
            wl_surface_set_input_region(surface, region)  // empty: every touch and click goes below
            wl_region_destroy(region)
        }
        wl_surface_set_buffer_scale(surface, max(1, outputs[index].scale))
        guard let layer = zwlr_layer_shell_v1_get_layer_surface(layerShell, surface, outputs[index].proxy, Self.overlayLayer, "percbridge-overlay") else {
            throw WaylandError("the Wayland compositor on \(name) did not create a layer surface")
        }
        layerSurface = layer
        zwlr_layer_surface_v1_add_listener(layer, Self.layerListener, Unmanaged.passUnretained(self).toOpaque())
        zwlr_layer_surface_v1_set_anchor(layer, Self.allEdges)
        zwlr_layer_surface_v1_set_exclusive_zone(layer, -1)
        zwlr_layer_surface_v1_set_keyboard_interactivity(layer, 0)
        zwlr_layer_surface_v1_set_size(layer, 0, 0)
        wl_surface_commit(surface)
        for _ in 0..<3 where configure == nil && !closed {
            try roundTrip("configuring the layer surface")
        }
        guard let configure, !closed, configure.width > 0, configure.height > 0 else {
            throw WaylandError("the Wayland compositor on \(name) did not give the overlay's layer surface a size on output \(outputs[index].screenOutput(index: index).name)")
        }
        zwlr_layer_surface_v1_ack_configure(layer, configure.serial)
    }

    /// Reads and dispatches events until `done()` or `timeout` s have passed, without blocking longer.
    func dispatch(for timeout: Double, until done: () -> Bool) throws(WaylandError) {
        let end = MonotonicSeconds.now() + timeout
        let fd = wl_display_get_fd(display)
        while !done() {
            while wl_display_prepare_read(display) != 0 {
                guard wl_display_dispatch_pending(display) >= 0 else { throw WaylandError.lost(display, name: name, while: "starting") }
            }
            wl_display_flush(display)
            let left = end - MonotonicSeconds.now()
            guard left > 0 else { wl_display_cancel_read(display); return }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, Int32((left * 1000).rounded(.up))) > 0 {
                guard wl_display_read_events(display) >= 0 else { throw WaylandError.lost(display, name: name, while: "starting") }
            } else {
                wl_display_cancel_read(display)
            }
            guard wl_display_dispatch_pending(display) >= 0 else { throw WaylandError.lost(display, name: name, while: "starting") }
        }
    }

    private func roundTrip(_ what: String) throws(WaylandError) {
        guard wl_display_roundtrip(display) >= 0 else { throw WaylandError.lost(display, name: name, while: what) }
    }

    /// Destroys what was made, then disconnects (after a failed start, or by the loop at its end).
    func tearDown() {
        if let layerSurface { zwlr_layer_surface_v1_destroy(layerSurface) }
        if let surface { wl_surface_destroy(surface) }
        for o in outputs { o.destroy() }
        if let xdgOutputManager { zxdg_output_manager_v1_destroy(xdgOutputManager) }
        if let presentation { wp_presentation_destroy(presentation) }
        if let layerShell { zwlr_layer_shell_v1_destroy(layerShell) }
        if let shm { wl_shm_destroy(shm) }
        if let compositor { wl_compositor_destroy(compositor) }
        if let registry { wl_registry_destroy(registry) }
        layerSurface = nil; surface = nil; outputs = []; presentation = nil; xdgOutputManager = nil; layerShell = nil; shm = nil; compositor = nil; registry = nil
        wl_display_flush(display)
        wl_display_disconnect(display)
    }

    private static func me(_ data: UnsafeMutableRawPointer?) -> WaylandSetup? {
        data.map { Unmanaged<WaylandSetup>.fromOpaque($0).takeUnretainedValue() }
    }

    nonisolated(unsafe) private static let presentationListener: UnsafeMutablePointer<wp_presentation_listener> = {
        let p = UnsafeMutablePointer<wp_presentation_listener>.allocate(capacity: 1)
        p.initialize(to: wp_presentation_listener(clock_id: { data, _, clock in me(data)?.clockID = Int32(bitPattern: clock) }))
        return p
    }()

    /// Configure and closed go to `onConfigure`/`onClosed` hooks once the loop runs.
    var onConfigure: ((UInt32, Int, Int) -> Void)?
    var onClosed: (() -> Void)?

    nonisolated(unsafe) private static let layerListener: UnsafeMutablePointer<zwlr_layer_surface_v1_listener> = {
        let p = UnsafeMutablePointer<zwlr_layer_surface_v1_listener>.allocate(capacity: 1)
        p.initialize(to: zwlr_layer_surface_v1_listener(
            configure: { data, _, serial, width, height in
                guard let s = me(data) else { return }
                s.configure = (serial, Int(width), Int(height))
                s.onConfigure?(serial, Int(width), Int(height))
            },
            closed: { data, _ in
                guard let s = me(data) else { return }
                s.closed = true
                s.onClosed?()
            }))
        return p
    }()
}

extension WaylandError {
    /// The connection failed: a protocol error (named), or the compositor went away.
    static func lost(_ display: OpaquePointer, name: String, while what: String) -> WaylandError {
        let code = wl_display_get_error(display)
        if code == EPROTO {
            var interface: UnsafePointer<wl_interface>?
            var id: UInt32 = 0
            let error = wl_display_get_protocol_error(display, &interface, &id)
            let iface = interface.map { String(cString: $0.pointee.name) } ?? "?"
            return WaylandError("Wayland display \(name): protocol error \(error) on \(iface)@\(id) while \(what); this is a bug, please report it with the compositor's name and version")
        }
        return WaylandError("lost Wayland display \(name) while \(what): the compositor closed the connection (errno \(code)); start the overlay again once it is back")
    }
}
