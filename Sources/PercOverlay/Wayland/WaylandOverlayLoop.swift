// The Wayland overlay's thread: one connection polled with a wake fd; commits frames, reads their feedback.
import CWayland
import CWaylandProtocols
import Foundation
import Glibc
import Logging
import Synchronization

/// Runs the layer surface on its own thread, as `X11OverlayLoop` runs the X11 window.
///
/// - The thread sleeps in poll(2) on the display's fd and an eventfd, with a timeout only when a
///   deadline is near (a frame's feedback overdue, an estimate's hold): no busy loop.
/// - Reading follows libwayland's prepare_read / read_events protocol, so no event is dispatched
///   twice and none waits in the queue while the thread sleeps.
/// - `show()` puts the newest request in a one-slot inbox; `WaylandFramePacer` decides when it is drawn.
/// - The connection breaking (or the compositor closing the surface) ends the thread after one
///   `onLost`; `stop()` ends it quietly.
final class WaylandOverlayLoop: @unchecked Sendable {
    // @unchecked: everything but the Mutex/Atomic fields and `wakeup` belongs to the loop thread
    // (before `start()`, to the thread that made it).
    private let setup: WaylandSetup
    private let surface: OpaquePointer
    private let output: ScreenOutput
    private let scale: Int
    private let wakeup: OverlayWakeup
    private let logger: Logger
    private let onPresented: @Sendable (UInt64, Double) -> Void
    private let onLost: @Sendable (WaylandError) -> Void
    private let control: OverlayThreadControl

    private var pacer: WaylandFramePacer
    private var width: Int
    private var height: Int
    private var buffers: [ShmBuffer] = []
    /// What the surface shows now (buffer pixels), to damage it away in the next frame.
    private var shownBox: DiscRaster.Box?
    /// The feedback (or frame callback) of the frame in flight.
    private var feedback: (proxy: OpaquePointer, frame: UInt32)?
    /// A frame drawn while every buffer was still held by the compositor: painted on the next release.
    private var blocked: (request: FramePacer.Request, frame: UInt32)?
    private var closedByCompositor = false
    /// True once any presentation feedback came back (presented or discarded).
    private var feedbackAnswered = false
    private var droppingDiscs = false

    /// At most this many buffers: one on screen, one being drawn, one the compositor is slow to release.
    static let maxBuffers = 3

    init(setup: WaylandSetup, output: ScreenOutput, scale: Int32, logger: Logger,
         onPresented: @escaping @Sendable (UInt64, Double) -> Void,
         onLost: @escaping @Sendable (WaylandError) -> Void) throws(WaylandError) {
        guard let surface = setup.surface, let configure = setup.configure else {
            throw WaylandError("the overlay's layer surface on \(setup.name) was not configured")
        }
        self.setup = setup
        self.surface = surface
        self.output = output
        self.scale = Int(max(1, scale))
        width = configure.width
        height = configure.height
        wakeup = try Self.makeWakeup()
        self.logger = logger
        control = OverlayThreadControl(wakeup: wakeup, name: "Wayland", logger: logger)
        self.onPresented = onPresented
        self.onLost = onLost
        pacer = WaylandFramePacer(mode: setup.presentation != nil ? .presentation : .estimate(period: 1 / (output.refreshHz ?? 60)))
        setup.onConfigure = { [unowned self] serial, w, h in configured(serial: serial, width: w, height: h) }
        setup.onClosed = { [unowned self] in closedByCompositor = true }
        // Map the surface now, empty: it is on the overlay layer from the start. Its feedback
        // tells whether the compositor answers wp_presentation at all.
        try commitEmpty()
    }

    /// The compositor answered (or not) the empty first frame's feedback within `probeTimeout`:
    /// without an answer, frames are timed by frame callbacks from the start.
    static let probeTimeout = 0.3

    private static func makeWakeup() throws(WaylandError) -> OverlayWakeup {
        do { return try OverlayWakeup() } catch { throw WaylandError(error.description) }
    }

    /// Whether frames are timed by wp_presentation (read before `start()`: the probe decided).
    var timesByPresentation: Bool { pacer.mode == .presentation }

    func start() {
        Thread.detachNewThread { [self] in run() }
    }

    // MARK: - Other threads

    func show(_ request: FramePacer.Request) { control.show(request) }

    /// Ends the thread and waits (up to 2 s) until it has destroyed the surface and disconnected;
    /// called on the loop thread itself (from a callback), it only asks.
    func stop() { control.stop() }

    var hasEnded: Bool { control.hasEnded }

    // MARK: - The thread

    private func run() {
        control.threadStarted()
        _ = percbridge_wl_set_thread_name("wl overlay")
        let lost = runUntilStoppedOrLost()
        if let lost, !control.stopping {
            logger.info("overlay: \(lost)")
            onLost(lost)
        }
        if let f = feedback { destroyFeedback(f.proxy) }
        feedback = nil
        buffers = []
        setup.tearDown()
        control.threadEnded()
    }

    private func runUntilStoppedOrLost() -> WaylandError? {
        let d = setup.display
        let fd = wl_display_get_fd(d)
        while !control.stopping {
            takeInbox()
            if let due = pacer.deadline, MonotonicSeconds.now() >= due { perform(pacer.handle(.deadlineReached, now: MonotonicSeconds.now())) }
            while wl_display_prepare_read(d) != 0 {
                guard wl_display_dispatch_pending(d) >= 0 else { return .lost(d, name: setup.name, while: "dispatching events") }
            }
            if let closed = closedError() { wl_display_cancel_read(d); return closed }
            var events = Int16(POLLIN)
            if wl_display_flush(d) < 0 {
                guard errno == EAGAIN else { wl_display_cancel_read(d); return .lost(d, name: setup.name, while: "sending requests") }
                events |= Int16(POLLOUT)  // the socket is full: wait until it drains
            }
            var fds = [pollfd(fd: fd, events: events, revents: 0), pollfd(fd: wakeup.fd, events: Int16(POLLIN), revents: 0)]
            let n = poll(&fds, 2, pollTimeout(now: MonotonicSeconds.now()))
            if n < 0, errno != EINTR {
                wl_display_cancel_read(d)
                return WaylandError("overlay loop on Wayland display \(setup.name): poll failed (errno \(errno))")
            }
            if fds[1].revents & Int16(POLLIN) != 0 { wakeup.drain() }
            if n > 0, fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                guard wl_display_read_events(d) >= 0 else { return .lost(d, name: setup.name, while: "reading events") }
            } else {
                wl_display_cancel_read(d)
            }
            guard wl_display_dispatch_pending(d) >= 0 else { return .lost(d, name: setup.name, while: "dispatching events") }
            if let closed = closedError() { return closed }
        }
        return nil
    }

    private func closedError() -> WaylandError? {
        closedByCompositor ? WaylandError("the compositor on Wayland display \(setup.name) closed the overlay's layer surface (output \(output.name) gone?); start the overlay again") : nil
    }

    private func takeInbox() {
        guard let request = control.takeRequest() else { return }
        perform(pacer.handle(.requested(request), now: MonotonicSeconds.now()))
    }

    private func pollTimeout(now: Double) -> Int32 {
        guard let due = pacer.deadline else { return -1 }
        return Int32(max(0, min(60_000, ((due - now) * 1000).rounded(.up))))
    }

    // MARK: - Frames

    private func perform(_ actions: [WaylandFramePacer.Action]) {
        for action in actions {
            switch action {
            case .draw(let request, let frame):
                draw(request, frame: frame)
            case .reportPresented(let serial, let at):
                onPresented(serial, at)
            case .discarded(let serial, let frame):
                logger.debug("overlay: frame \(frame) (serial \(serial)) discarded by the compositor; not reported")
            case .abandon(let serial, let frame):
                if let f = feedback { destroyFeedback(f.proxy) }
                feedback = nil
                blocked = nil
                if pacer.mode == .presentation, !feedbackAnswered {
                    let period = 1 / (output.refreshHz ?? 60)
                    logger.notice("overlay: the compositor on \(setup.name) announces wp_presentation but did not answer frame \(frame)'s feedback within \(WaylandFramePacer.completionTimeout) s (serial \(serial) not reported); timing frames from now on by their frame callback + one refresh period (\((period * 1000).rounded()) ms), an upper estimate")
                    pacer.fallBackToEstimate(period: period)
                } else {
                    logger.notice("overlay: frame \(frame) (serial \(serial)) got no presentation feedback within \(WaylandFramePacer.completionTimeout) s; not reported, drawing on")
                }
            }
        }
    }

    /// One frame: paint a free buffer, attach, damage what changed, ask for feedback, commit.
    private func draw(_ request: FramePacer.Request, frame: UInt32) {
        guard let buffer = freeBuffer() else {
            blocked = (request, frame)  // every buffer is on the compositor's side: wait for a release
            return
        }
        blocked = nil
        let local = request.discs.map { OverlayDisc(x: $0.x - Double(output.x), y: $0.y - Double(output.y), radius: $0.radius, white: $0.white) }
        let layout = DiscLayout(local, rootWidth: width, rootHeight: height)
        noteDropped(layout, serial: request.serial)
        let box = DiscRaster.paint(layout, scale: scale, into: buffer.pixels, width: buffer.width, height: buffer.height, clearing: buffer.painted)
        buffer.painted = box
        wl_surface_attach(surface, buffer.proxy, 0, 0)
        // Something is always damaged: a commit that changes nothing may never be presented.
        let damage = DiscRaster.union(shownBox, box) ?? DiscRaster.Box(x: 0, y: 0, width: 1, height: 1)
        wl_surface_damage_buffer(surface, Int32(damage.x), Int32(damage.y), Int32(damage.width), Int32(damage.height))
        shownBox = box
        if let f = feedback { destroyFeedback(f.proxy) }
        let data = Unmanaged.passUnretained(self).toOpaque()
        if pacer.mode == .presentation, let presentation = setup.presentation, let fb = wp_presentation_feedback(presentation, surface) {
            wp_presentation_feedback_add_listener(fb, Self.feedbackListener, data)
            feedback = (fb, frame)
        } else if let cb = wl_surface_frame(surface) {
            wl_callback_add_listener(cb, Self.frameListener, data)
            feedback = (cb, frame)
        }
        wl_surface_commit(surface)
        buffer.busy = true
    }

    private func commitEmpty() throws(WaylandError) {
        let buffer = try newBuffer()
        wl_surface_attach(surface, buffer.proxy, 0, 0)
        wl_surface_damage_buffer(surface, 0, 0, Int32(buffer.width), Int32(buffer.height))
        var probe: OpaquePointer?
        if let presentation = setup.presentation, let fb = wp_presentation_feedback(presentation, surface) {
            wp_presentation_feedback_add_listener(fb, Self.feedbackListener, Unmanaged.passUnretained(self).toOpaque())
            feedback = (fb, 0)
            probe = fb
        }
        wl_surface_commit(surface)
        buffer.busy = true
        guard probe != nil else { return }
        try setup.dispatch(for: Self.probeTimeout) { feedback == nil }
        if let f = feedback {
            destroyFeedback(f.proxy)
            feedback = nil
            let period = 1 / (output.refreshHz ?? 60)
            logger.notice("overlay: the compositor on \(setup.name) announces wp_presentation but did not answer the first frame's feedback within \(Self.probeTimeout) s (headless sway 1.7 never does); timing frames by their frame callback + one refresh period (\((period * 1000).rounded()) ms), an upper estimate")
            pacer.fallBackToEstimate(period: period)
        }
    }

    private func freeBuffer() -> ShmBuffer? {
        if let b = buffers.first(where: { !$0.busy }) { return b }
        guard buffers.count < Self.maxBuffers else { return nil }
        do { return try newBuffer() } catch {
            logger.warning("overlay: \(error)")
            return nil
        }
    }

    private func newBuffer() throws(WaylandError) -> ShmBuffer {
        guard let shm = setup.shm else { throw WaylandError("no wl_shm") }
        let b = try ShmBuffer(shm: shm, width: width * scale, height: height * scale, listener: Self.bufferListener,
                              data: Unmanaged.passUnretained(self).toOpaque())
        buffers.append(b)
        return b
    }

    /// A buffer came back from the compositor (its `release`); a blocked frame is drawn now.
    func released(_ proxy: OpaquePointer?) {
        guard let b = buffers.first(where: { $0.proxy == proxy }) else { return }
        b.busy = false
        if let blocked { draw(blocked.request, frame: blocked.frame) }
    }

    /// A new size (the output changed mode): acknowledged; later frames use buffers of that size.
    private func configured(serial: UInt32, width w: Int, height h: Int) {
        zwlr_layer_surface_v1_ack_configure(setup.layerSurface, serial)
        guard w > 0, h > 0, w != width || h != height else { return }
        width = w
        height = h
        // Buffers of the old size go (one the compositor still holds included: destroying a wl_shm
        // buffer in use is allowed, it keeps what it copied); the next frame paints a new one.
        buffers.removeAll()
        logger.info("overlay: the layer surface is now \(w)×\(h)")
    }

    /// The feedback (or frame callback) `proxy` ended with `event` for its frame.
    func feedbackEnded(_ proxy: OpaquePointer?, _ event: (UInt32) -> WaylandFramePacer.Event) {
        guard let f = feedback, f.proxy == proxy else { return }
        if pacer.mode == .presentation { feedbackAnswered = true }
        destroyFeedback(f.proxy)
        feedback = nil
        guard f.frame != 0 else { return }  // the start-up probe
        perform(pacer.handle(event(f.frame), now: MonotonicSeconds.now()))
    }

    private func destroyFeedback(_ proxy: OpaquePointer) {
        wl_proxy_destroy(proxy)
    }

    /// The compositor's timestamp on CLOCK_MONOTONIC: as it is, or moved by the two clocks' offset now.
    func monotonic(sec: UInt64, nsec: UInt32) -> Double {
        let t = Double(sec) + Double(nsec) / 1e9
        guard setup.clockID != CLOCK_MONOTONIC else { return t }
        var ts = timespec()
        clock_gettime(clockid_t(setup.clockID), &ts)
        return t - (Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9 - MonotonicSeconds.now())
    }

    private func noteDropped(_ layout: DiscLayout, serial: UInt64) {
        let dropping = layout.droppedOverLimit > 0
        if dropping, !droppingDiscs {
            logger.notice("overlay: frame \(serial) has more than \(DiscLayout.maxDiscs) discs; drawing the first \(DiscLayout.maxDiscs), dropping \(layout.droppedOverLimit)")
        }
        droppingDiscs = dropping
    }
}
