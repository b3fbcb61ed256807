// What the compositor offers (the registry's globals) and what each wl_output says about itself.
import CWayland
import CWaylandProtocols

/// The registry's globals as announced during the first round trip: name, interface, version.
final class WaylandGlobals {
    struct Global {
        var name: UInt32
        var interface: String
        var version: UInt32
    }

    private(set) var globals: [Global] = []

    func first(_ interface: String) -> Global? { globals.first { $0.interface == interface } }
    func all(_ interface: String) -> [Global] { globals.filter { $0.interface == interface } }

    /// Listens on `registry` (bounded: a compositor announces a few dozen globals; past 1024 the
    /// rest are ignored).
    func listen(to registry: OpaquePointer) {
        wl_registry_add_listener(registry, Self.listener, Unmanaged.passUnretained(self).toOpaque())
    }

    nonisolated(unsafe) private static let listener: UnsafeMutablePointer<wl_registry_listener> = {
        let p = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
        p.initialize(to: wl_registry_listener(
            global: { data, _, name, interface, version in
                guard let data, let interface else { return }
                let me = Unmanaged<WaylandGlobals>.fromOpaque(data).takeUnretainedValue()
                guard me.globals.count < 1024 else { return }
                me.globals.append(Global(name: name, interface: String(cString: interface), version: version))
            },
            global_remove: { _, _, _ in }))
        return p
    }()
}

/// One wl_output as its events describe it, collected until `done`; where it is in the layout
/// comes from its xdg-output (wlroots sends 0,0 in wl_output.geometry for every output).
final class WaylandOutputInfo {
    let proxy: OpaquePointer
    let globalName: UInt32
    private(set) var xdgOutput: OpaquePointer?
    var name: String?
    /// xdg-output's logical position and size, when the compositor has xdg-output.
    var logical: (x: Int32, y: Int32, width: Int32, height: Int32)?
    var x: Int32 = 0, y: Int32 = 0
    var modeWidth: Int32 = 0, modeHeight: Int32 = 0
    var refreshMilliHz: Int32 = 0
    var transform: Int32 = 0
    var scale: Int32 = 1
    var done = false

    init(proxy: OpaquePointer, globalName: UInt32) {
        self.proxy = proxy
        self.globalName = globalName
        wl_output_add_listener(proxy, Self.listener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Asks the compositor's xdg-output manager where this output is in the layout.
    func describe(with manager: OpaquePointer) {
        guard let o = zxdg_output_manager_v1_get_xdg_output(manager, proxy) else { return }
        xdgOutput = o
        zxdg_output_v1_add_listener(o, Self.xdgListener, Unmanaged.passUnretained(self).toOpaque())
    }

    func destroy() {
        if let xdgOutput { zxdg_output_v1_destroy(xdgOutput) }
        xdgOutput = nil
        wl_output_destroy(proxy)
    }

    /// In compositor layout pixels (logical): xdg-output's rectangle, else the mode divided by the
    /// scale and turned by the transform at wl_output's position.
    func screenOutput(index: Int) -> ScreenOutput {
        let s = max(1, scale)
        let turned = transform % 2 == 1
        var w = Int((turned ? modeHeight : modeWidth) / s), h = Int((turned ? modeWidth : modeHeight) / s)
        var (px, py) = (Int(x), Int(y))
        if let logical, logical.width > 0, logical.height > 0 {
            (px, py, w, h) = (Int(logical.x), Int(logical.y), Int(logical.width), Int(logical.height))
        }
        return ScreenOutput(name: name ?? "output-\(index)", x: px, y: py, width: w, height: h,
                            rotation: Int(transform & 3) * 90,
                            refreshHz: refreshMilliHz > 0 ? Double(refreshMilliHz) / 1000 : nil, primary: index == 0)
    }

    private static func me(_ data: UnsafeMutableRawPointer?) -> WaylandOutputInfo? {
        data.map { Unmanaged<WaylandOutputInfo>.fromOpaque($0).takeUnretainedValue() }
    }

    nonisolated(unsafe) private static let listener: UnsafeMutablePointer<wl_output_listener> = {
        let p = UnsafeMutablePointer<wl_output_listener>.allocate(capacity: 1)
        p.initialize(to: wl_output_listener(
            geometry: { data, _, x, y, _, _, _, _, _, transform in
                guard let o = me(data) else { return }
                o.x = x; o.y = y; o.transform = transform
            },
            mode: { data, _, flags, width, height, refresh in
                guard let o = me(data), flags & WL_OUTPUT_MODE_CURRENT.rawValue != 0 else { return }
                o.modeWidth = width; o.modeHeight = height; o.refreshMilliHz = refresh
            },
            done: { data, _ in me(data)?.done = true },
            scale: { data, _, factor in me(data)?.scale = factor },
            name: { data, _, name in
                guard let o = me(data), let name else { return }
                o.name = String(cString: name)
            },
            description: { _, _, _ in }))
        return p
    }()

    nonisolated(unsafe) private static let xdgListener: UnsafeMutablePointer<zxdg_output_v1_listener> = {
        let p = UnsafeMutablePointer<zxdg_output_v1_listener>.allocate(capacity: 1)
        p.initialize(to: zxdg_output_v1_listener(
            logical_position: { data, _, x, y in
                guard let o = me(data) else { return }
                o.logical = (x, y, o.logical?.width ?? 0, o.logical?.height ?? 0)
            },
            logical_size: { data, _, w, h in
                guard let o = me(data) else { return }
                o.logical = (o.logical?.x ?? 0, o.logical?.y ?? 0, w, h)
            },
            done: { _, _ in },
            name: { data, _, name in
                guard let o = me(data), let name, o.name == nil else { return }
                o.name = String(cString: name)
            },
            description: { _, _, _ in }))
        return p
    }()
}
