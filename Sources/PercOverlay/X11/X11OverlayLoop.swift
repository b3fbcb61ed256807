// The overlay's thread: one xcb connection polled with a wake fd; draws frames, keeps the window on top.
import CXCB
import Foundation
import Glibc
import Logging
import Synchronization

/// Runs the overlay window on its own thread.
///
/// - The thread sleeps in poll(2) on the xcb socket and an eventfd, with a timeout only when a
///   deadline is near (a frame's completion overdue, an owed raise, an estimate's hold): no busy loop.
/// - `show()` puts the newest request in a one-slot inbox and pokes the eventfd; the thread hands it
///   to `FramePacer`, which decides when it is drawn and what is reported.
/// - After every batch of work the thread flushes and looks at xcb's queue again before it sleeps:
///   xcb reads the socket while it writes (and `readPixels` reads on other threads), so events can
///   sit in its queue while the socket has nothing left to report.
/// - The connection breaking ends the thread after one `onLost`; `stop()` ends it quietly.
final class X11OverlayLoop: @unchecked Sendable {
    // @unchecked: `pacer`, `raiser`, `painted`, `roundTrip`, `mapped` and `droppingDiscs` belong to
    // the loop thread; what other threads touch is immutable, a Mutex or an Atomic.
    let connection: XCBConnection
    let window: OverlayWindow
    let wakeup: OverlayWakeup
    let logger: Logger
    /// Present's major opcode when its CompleteNotify times the frames.
    private let presentOpcode: UInt8?
    private let onPresented: @Sendable (UInt64, Double) -> Void
    private let onLost: @Sendable (X11Error) -> Void
    private let control: OverlayThreadControl

    private var pacer: FramePacer
    private var raiser = RaiseLimiter()
    /// What the window shows now, repainted on Expose.
    private var painted: DiscLayout?
    /// The round trip that times the frame in flight (estimate mode): its request sequence.
    private var roundTrip: UInt32?
    private var mapped = false
    private var droppingDiscs = false
    private var warnedContested = false

    /// Bounds on one batch of work between flushes (a client flooding the root with events must
    /// not hold back our own requests).
    static let maxRounds = 64
    static let maxEventsPerRound = 256

    init(connection: XCBConnection, window: OverlayWindow, wakeup: OverlayWakeup, presentOpcode: UInt8?,
         refreshPeriod: Double, logger: Logger,
         onPresented: @escaping @Sendable (UInt64, Double) -> Void, onLost: @escaping @Sendable (X11Error) -> Void) {
        self.connection = connection
        self.window = window
        self.wakeup = wakeup
        control = OverlayThreadControl(wakeup: wakeup, name: "X11", logger: logger)
        self.presentOpcode = presentOpcode
        self.logger = logger
        self.onPresented = onPresented
        self.onLost = onLost
        pacer = FramePacer(mode: presentOpcode != nil ? .present : .estimate(period: refreshPeriod))
    }

    func start() {
        Thread.detachNewThread { [self] in run() }
    }

    // MARK: - Other threads

    /// Latest wins; never blocks on the server.
    func show(_ request: FramePacer.Request) { control.show(request) }

    /// Ends the thread and waits (up to 2 s) until it has destroyed the window and disconnected;
    /// called on the loop thread itself (from a callback), it only asks.
    func stop() { control.stop() }

    var hasEnded: Bool { control.hasEnded }

    /// Makes the loop look at xcb's queue (another thread read from the connection).
    func wake() { wakeup.poke() }

    // MARK: - The thread

    private func run() {
        control.threadStarted()
        _ = percbridge_xcb_set_thread_name("x11 overlay")
        let lost = runUntilStoppedOrLost()
        if let lost {
            if !control.stopping {
                logger.info("overlay: \(lost)")
                onLost(lost)
            }
        } else {
            window.destroy()
            _ = xcb_flush(connection.raw)
        }
        connection.close()
        control.threadEnded()
    }

    /// Returns nil when stopped, the reason when the connection broke.
    private func runUntilStoppedOrLost() -> X11Error? {
        let c = connection.raw
        let socket = xcb_get_file_descriptor(c)
        while !control.stopping {
            processEverything()
            if let failure = connection.failure() { return failure }
            guard xcb_flush(c) > 0 else { return connection.failure() ?? lostWithoutReason() }
            // Writing may have read: handle what it queued before sleeping.
            if checkRoundTrip() { continue }
            if let event = xcb_poll_for_queued_event(c) {
                handle(event)
                free(event)
                continue
            }
            var fds = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeup.fd, events: Int16(POLLIN), revents: 0)]
            let n = poll(&fds, 2, pollTimeout(now: MonotonicSeconds.now()))
            if n < 0, errno != EINTR {
                return X11Error("overlay loop on X display \(connection.displayName): poll failed (errno \(errno))")
            }
            if fds[1].revents & Int16(POLLIN) != 0 { wakeup.drain() }
            if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                // Read what is left (xcb notes the end of the stream), then give up either way.
                processEverything()
                return connection.failure() ?? lostWithoutReason()
            }
        }
        return nil
    }

    private func lostWithoutReason() -> X11Error {
        X11Error("lost X display \(connection.displayName): the connection closed; start the overlay again once the display is back")
    }

    /// Takes the newest show(), every event xcb has or can read now, the round trip's reply and
    /// the deadlines due, until none of them has anything new (or `maxRounds` have passed).
    private func processEverything() {
        var progressed = true
        var rounds = 0
        while progressed, rounds < Self.maxRounds {
            progressed = false
            rounds += 1
            if let request = control.takeRequest() {
                perform(pacer.handle(.requested(request), now: MonotonicSeconds.now()))
                progressed = true
            }
            for _ in 0..<Self.maxEventsPerRound {
                guard let event = xcb_poll_for_event(connection.raw) else { break }
                handle(event)
                free(event)
                progressed = true
            }
            if checkRoundTrip() { progressed = true }
        }
        let now = MonotonicSeconds.now()
        if let deadline = pacer.deadline, now >= deadline { perform(pacer.handle(.deadlineReached, now: now)) }
        if raiser.due(now: now) { window.raise() }
    }

    private func pollTimeout(now: Double) -> Int32 {
        let deadlines = [pacer.deadline, raiser.deadline].compactMap { $0 }
        guard let nearest = deadlines.min() else { return -1 }
        return Int32(max(0, min(60_000, ((nearest - now) * 1000).rounded(.up))))
    }

    // MARK: - Frames

    private func perform(_ actions: [FramePacer.Action]) {
        for action in actions {
            switch action {
            case .draw(let request, let frame):
                draw(request, frame: frame)
            case .reportPresented(let serial, let at):
                onPresented(serial, at)
            case .abandon(let serial, let frame):
                logger.notice("overlay: frame \(frame) (serial \(serial)) got no presentation within \(FramePacer.completionTimeout) s; not reported, drawing on")
                roundTrip = nil
            }
        }
    }

    /// One frame: the shape, the map on first use, the paint, then what times it. The server runs
    /// one connection's requests in order, so the notify (or the round trip) is answered only after
    /// the drawing was done.
    private func draw(_ request: FramePacer.Request, frame: UInt32) {
        let layout = DiscLayout(request.discs, rootWidth: window.rootWidth, rootHeight: window.rootHeight)
        noteDropped(layout, serial: request.serial)
        window.setShape(layout)
        if !mapped {
            window.map()
            mapped = true
        }
        window.paint(layout)
        painted = layout
        if presentOpcode != nil {
            // Complete at the next vblank: target 0 is past, divisor 1 picks the next MSC.
            xcb_present_notify_msc(connection.raw, window.id, frame, 0, 1, 0)
        } else {
            roundTrip = xcb_get_input_focus(connection.raw).sequence
        }
    }

    private func noteDropped(_ layout: DiscLayout, serial: UInt64) {
        let dropping = layout.droppedOverLimit > 0
        if dropping, !droppingDiscs {
            logger.notice("overlay: frame \(serial) has more than \(DiscLayout.maxDiscs) discs; drawing the first \(DiscLayout.maxDiscs), dropping \(layout.droppedOverLimit)")
        }
        droppingDiscs = dropping
        if layout.droppedOffScreen > 0 {
            logger.debug("overlay: frame \(serial): \(layout.droppedOffScreen) discs off the screen or not numbers")
        }
    }

    /// True when the round trip timing the frame in flight has returned.
    private func checkRoundTrip() -> Bool {
        guard let sequence = roundTrip else { return false }
        var reply: UnsafeMutableRawPointer?
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        guard xcb_poll_for_reply(connection.raw, sequence, &reply, &error) != 0 else { return false }
        free(reply)
        free(error)
        roundTrip = nil
        let now = MonotonicSeconds.now()
        perform(pacer.handle(.roundTripReturned(at: now), now: now))
        return true
    }

    // MARK: - Events

    private func handle(_ event: UnsafeMutablePointer<xcb_generic_event_t>) {
        switch X11Event(event, presentOpcode: presentOpcode) {
        case .exposed(let window, let remaining):
            if window == self.window.id, remaining == 0, let painted { self.window.paint(painted) }
        case .visibility(let window, let unobscured):
            if window == self.window.id, !unobscured, painted?.isEmpty == false { requestRaise(because: "covered") }
        case .mapped(let parent, let window):
            if parent == self.window.root, window != self.window.id { requestRaise(because: "window 0x\(String(window, radix: 16)) mapped") }
        case .restacked(let parent, let window, let above):
            if parent == self.window.root, window != self.window.id, above == self.window.id {
                requestRaise(because: "window 0x\(String(window, radix: 16)) raised over the overlay")
            }
        case .circulatedToTop(let parent, let window):
            if parent == self.window.root, window != self.window.id { requestRaise(because: "window 0x\(String(window, radix: 16)) circulated up") }
        case .presentCompleted(let window, let serial, let ust):
            guard window == self.window.id else { return }
            perform(pacer.handle(.presentCompleted(frame: serial, at: Double(ust) / 1e6), now: MonotonicSeconds.now()))
        case .error(let code, let major, let minor):
            logger.notice("overlay: X error \(code) for request \(major).\(minor) on display \(connection.displayName)")
        case .other:
            break
        }
    }

    private func requestRaise(because reason: @autoclosure () -> String) {
        guard mapped else { return }
        if raiser.request(now: MonotonicSeconds.now()) {
            let why = reason()
            logger.debug("overlay: raising (\(why))")
            window.raise()
        } else if raiser.contested > 10, !warnedContested {
            warnedContested = true
            logger.notice("overlay: another client keeps raising its window over the overlay; re-raising at most every \(RaiseLimiter.minimumInterval) s")
        }
    }
}
