// What the overlay does with each message: pure, so every case is tested without a display or a service.

/// A disc to draw, in screen pixels (root window).
public struct ScreenDisc: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public var radius: Double
    public var white: Bool
    public init(x: Double, y: Double, radius: Double, white: Bool) { self.x = x; self.y = y; self.radius = radius; self.white = white }
}

/// The overlay's side of one connection to the service. It answers the service's messages
/// and the display's presented reports with actions; the connection and the display carry
/// them out. Rules:
/// - it draws only after the service said `drawing` with `draws: true` (an app that draws of
///   its own accord wins, docs/app-protocol.md), and clears the screen when told to stand by
///   or when the connection ends (patches left on screen would mislead nobody but cover the app);
/// - each overlay is drawn as the service planned it, mapped to the screen by `placement`;
/// - only the latest overlay shown is reported presented, once, with the time the display gave,
///   on the service clock once a ping has mapped it.
public struct OverlaySession: Sendable {
    public enum Action: Equatable, Sendable {
        case send(String)
        /// Draw exactly these discs (empty: clear); report `serial` when shown, if it is not 0.
        case show([ScreenDisc], serial: UInt64)
        case log(String)
        /// Something the overlay cannot work with (another protocol version): stop, do not retry.
        case fail(String)
    }

    /// The on-screen rectangle of the touch surface (pixels) and its rotation; the surface's
    /// size in mm comes with the service's hello.
    public struct Placement: Sendable, Equatable {
        public var originX: Double, originY: Double, width: Double, height: Double, rotation: Int
        public init(originX: Double, originY: Double, width: Double, height: Double, rotation: Int) {
            self.originX = originX; self.originY = originY; self.width = width; self.height = height; self.rotation = rotation
        }
    }

    /// At most this many patches are drawn from one overlay (the service plans far fewer).
    public static let maxPatches = 256
    /// Pings sent back to back after connecting to find the clock offset, then one per `pingEvery`.
    public static let initialPings = 6

    public let placement: Placement
    public let name: String
    public private(set) var mapping: SurfaceMapping?
    public private(set) var drawing = false
    public private(set) var clock = ClockMapping()
    /// The overlay last shown for the service, awaiting its presented report.
    private var awaiting: UInt64?
    /// When the awaited overlay was planned (service clock).
    private var plannedAt: Double?
    public private(set) var shown = ShownLatency()
    /// Every this many presented reports, the latency line is logged.
    public static let logEvery = 100
    private var pingsSent: [Int64: Double] = [:]
    private var nextPing: Int64 = 1
    private var pongs = 0

    public init(placement: Placement, name: String = "percbridge overlay") {
        self.placement = placement
        self.name = name
    }

    /// The connection is up (WebSocket upgraded).
    public mutating func connected(now: Double) -> [Action] {
        drawing = false
        awaiting = nil
        return [.send(OverlayOutbound.hello(name: name)), ping(now)]
    }

    /// The connection ended: clear what we drew; a new connection starts over.
    public mutating func disconnected() -> [Action] {
        let wasDrawing = drawing
        drawing = false
        awaiting = nil
        pingsSent = [:]
        var actions: [Action] = wasDrawing ? [.show([], serial: 0)] : []
        if wasDrawing, let s = shown.summary { actions.append(.log(s)) }
        return actions
    }

    /// Time for a periodic ping (the clocks drift slowly; the mapping keeps its best pair).
    public mutating func pingDue(now: Double) -> [Action] { [ping(now)] }

    private mutating func ping(_ now: Double) -> Action {
        let id = nextPing
        nextPing += 1
        pingsSent[id] = now
        // Only a few are ever outstanding: a service that never answers cannot grow this.
        if pingsSent.count > 16, let oldest = pingsSent.keys.min() { pingsSent[oldest] = nil }
        return .send(OverlayOutbound.ping(id: id, appTime: now))
    }

    public mutating func received(_ message: ServiceMessage, now: Double) -> [Action] {
        switch message {
        case .hello(let version, let w, let h, let service):
            guard version == OverlayOutbound.protocolVersion else {
                return [.fail("\(service) speaks app protocol \(version), this overlay speaks \(OverlayOutbound.protocolVersion): install percbridge and its overlay from the same release")]
            }
            switch SurfaceMapping.make(originX: placement.originX, originY: placement.originY, width: placement.width,
                                       height: placement.height, rotation: placement.rotation,
                                       surfaceWidthMM: w, surfaceHeightMM: h) {
            case .failure(let e): return [.fail(e.description)]
            case .success(let m):
                mapping = m
                return [.log("connected to \(service): surface \(fmt(w)) x \(fmt(h)) mm on screen \(m)")]
            }
        case .drawing(let draws, let by):
            guard draws != drawing else { return [] }
            drawing = draws
            if draws { return [.log("drawing the light-check overlay")] }
            awaiting = nil
            return [.show([], serial: 0), .log("standing by: \(by ?? "an app") draws the overlay")]
        case .overlay(let id, let planned, let patches):
            guard drawing, let mapping else { return [] }
            var actions: [Action] = []
            if patches.count > Self.maxPatches {
                actions.append(.log("overlay \(id) has \(patches.count) patches; drawing the first \(Self.maxPatches)"))
            }
            let discs = patches.prefix(Self.maxPatches).compactMap { p -> ScreenDisc? in
                guard p.x.isFinite, p.y.isFinite, p.radius.isFinite, p.radius > 0 else { return nil }
                let c = mapping.pixel(x: p.x, y: p.y)
                return ScreenDisc(x: c.x, y: c.y, radius: mapping.pixels(radius: p.radius), white: p.colour == "white")
            }
            awaiting = id
            plannedAt = planned
            actions.append(.show(discs, serial: id))
            return actions
        case .pong(let id, _, let time):
            guard let sent = pingsSent.removeValue(forKey: id) else { return [] }
            clock.add(sent: sent, received: now, serviceTime: time)
            pongs += 1
            return pongs < Self.initialPings ? [ping(now)] : []
        case .error(let code, let message):
            return [.log("the service answered \(code): \(message)")]
        case .other:
            return []
        }
    }

    /// The display showed the frame for `serial` at local time `at` (the display's clock,
    /// CLOCK_MONOTONIC seconds).
    public mutating func presented(serial: UInt64, at: Double) -> [Action] {
        guard drawing, serial != 0, serial == awaiting else { return [] }
        awaiting = nil
        let time = clock.serviceTime(at)
        var actions: [Action] = [.send(OverlayOutbound.presented(overlay: serial, time: time, appTime: at))]
        if let time, let plannedAt {
            shown.add(time - plannedAt)
            if shown.total % Self.logEvery == 0, let s = shown.summary { actions.append(.log(s)) }
        }
        return actions
    }

    private func fmt(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
}
