// The part of frame pacing both overlays share (X11 and Wayland): pure, time is an argument.

/// The actions every pacer has; each backend's `Action` enum meets them with its own cases.
protocol FramePacingAction {
    static func draw(_ request: FramePacer.Request, frame: UInt32) -> Self
    static func reportPresented(serial: UInt64, at: Double) -> Self
    static func abandon(serial: UInt64, frame: UInt32) -> Self
}

/// One frame in flight, the newest request waiting behind it, the completion timeout and the
/// frame counter: the same for both backends, so `FramePacer` and `WaylandFramePacer` keep only
/// which of their events end, time or hold a frame.
struct FramePacing<Action: FramePacingAction> {
    enum State: Equatable {
        case idle
        /// Drawn (on Wayland: committed) at `drawnAt`; its completion has not come yet.
        case awaiting(frame: UInt32, serial: UInt64, drawnAt: Double)
        /// Reported as shown at `until` (estimate mode): the next frame waits for that time.
        case holding(until: Double)
    }

    private(set) var state: State = .idle
    /// The newest request not drawn yet.
    private(set) var waiting: FramePacer.Request?
    private var nextFrame: UInt32 = 1

    /// When the loop must come back with its deadline event, if ever.
    var deadline: Double? {
        switch state {
        case .idle: nil
        case .awaiting(_, _, let drawnAt): drawnAt + FramePacer.completionTimeout
        case .holding(let until): until
        }
    }

    /// A request replaces the waiting one; it is drawn at once only when nothing is in flight.
    mutating func request(_ request: FramePacer.Request, now: Double) -> [Action] {
        waiting = request
        return state == .idle ? drawWaiting(now: now) : []
    }

    /// The frame in flight reached the screen at `at`: reported, and the waiting one drawn.
    mutating func presented(serial: UInt64, at: Double, now: Double) -> [Action] {
        [.reportPresented(serial: serial, at: at)] + release(now: now)
    }

    /// The frame in flight is reported as shown at the estimated `shownAt`; the next frame waits
    /// until then, so two estimates are never closer than the period they add.
    mutating func hold(serial: UInt64, shownAt: Double, now: Double) -> [Action] {
        state = .holding(until: shownAt)
        return [.reportPresented(serial: serial, at: shownAt)] + (now >= shownAt ? release(now: now) : [])
    }

    /// The loop reached `deadline`: a hold that is over ends, a frame past its timeout is abandoned.
    mutating func deadlineReached(now: Double) -> [Action] {
        switch state {
        case .idle:
            return []
        case .holding(let until):
            return now >= until ? release(now: now) : []
        case .awaiting(let frame, let serial, let drawnAt):
            guard now >= drawnAt + FramePacer.completionTimeout else { return [] }
            return [.abandon(serial: serial, frame: frame)] + release(now: now)
        }
    }

    /// Nothing is in flight any more: the waiting request, if any, is drawn.
    mutating func release(now: Double) -> [Action] {
        state = .idle
        return drawWaiting(now: now)
    }

    private mutating func drawWaiting(now: Double) -> [Action] {
        guard let request = waiting else { return [] }
        waiting = nil
        let frame = nextFrame
        nextFrame = nextFrame == .max ? 1 : nextFrame + 1
        state = .awaiting(frame: frame, serial: request.serial, drawnAt: now)
        return [.draw(request, frame: frame)]
    }
}
