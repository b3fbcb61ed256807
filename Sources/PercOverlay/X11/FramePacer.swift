// When the overlay draws and which frames it reports as presented (pure: time is an argument).

/// Paces the overlay's frames: latest show() wins, one frame in flight at a time.
///
/// A frame is "in flight" from its drawing until the X server says it reached the screen (Present's
/// CompleteNotify) or, without Present, until the estimated time it did. A show() that arrives
/// meanwhile waits, and a newer one replaces it: it is superseded before it was drawn and gets no
/// report. Drawing it at once instead could replace the frame in flight before its vblank, and
/// that frame would be reported as shown although no scanout ever held it.
///
/// Every drawn frame gets exactly one report, except one whose completion never comes within
/// `completionTimeout` (a server that lost its CRTC): that one is abandoned so the overlay goes on.
struct FramePacer {
    struct Request: Equatable {
        var discs: [OverlayDisc]
        var serial: UInt64
    }

    enum Mode: Equatable {
        /// Present's CompleteNotify carries the time.
        case present
        /// The round trip after the drawing returns, plus one refresh `period` (seconds).
        case estimate(period: Double)
    }

    enum State: Equatable {
        case idle
        /// Drawn; Present will notify `frame` at the next vblank.
        case awaitingCompletion(frame: UInt32, serial: UInt64, drawnAt: Double)
        /// Drawn; the round trip behind it has not returned yet (estimate mode).
        case awaitingRoundTrip(frame: UInt32, serial: UInt64, drawnAt: Double)
        /// Reported as shown at `until` (estimate mode): the next frame waits for that time.
        case holding(until: Double)
    }

    enum Event: Equatable {
        case requested(Request)
        case presentCompleted(frame: UInt32, at: Double)
        case roundTripReturned(at: Double)
        /// The loop reached `deadline`.
        case deadlineReached
    }

    enum Action: Equatable {
        /// Draw these discs as `frame` (the 32-bit serial Present carries).
        case draw(Request, frame: UInt32)
        case reportPresented(serial: UInt64, at: Double)
        /// No completion came for this frame in time; nothing is reported for it.
        case abandon(serial: UInt64, frame: UInt32)
    }

    /// How long a drawn frame may wait for its completion: many refresh periods, so only a
    /// server that will never answer trips it.
    static let completionTimeout = 0.5

    let mode: Mode
    private var pacing = FramePacing<Action>()

    init(mode: Mode) { self.mode = mode }

    /// The shared state, named for the event this mode waits on.
    var state: State {
        switch pacing.state {
        case .idle: .idle
        case .awaiting(let frame, let serial, let drawnAt) where mode == .present: .awaitingCompletion(frame: frame, serial: serial, drawnAt: drawnAt)
        case .awaiting(let frame, let serial, let drawnAt): .awaitingRoundTrip(frame: frame, serial: serial, drawnAt: drawnAt)
        case .holding(let until): .holding(until: until)
        }
    }

    /// The newest show() not drawn yet.
    var waiting: Request? { pacing.waiting }

    /// When the loop must come back with `.deadlineReached`, if ever.
    var deadline: Double? { pacing.deadline }

    mutating func handle(_ event: Event, now: Double) -> [Action] {
        switch (state, event) {
        case (_, .requested(let request)):
            return pacing.request(request, now: now)
        case (.awaitingCompletion(let frame, let serial, _), .presentCompleted(let completed, let at)) where completed == frame:
            return pacing.presented(serial: serial, at: at, now: now)
        case (_, .presentCompleted):
            // A frame abandoned earlier, or another client's notify on our window: not ours to report.
            return []
        case (.awaitingRoundTrip(_, let serial, _), .roundTripReturned(let at)):
            guard case .estimate(let period) = mode else { return [] }
            return pacing.hold(serial: serial, shownAt: at + period, now: now)
        case (_, .roundTripReturned):
            return []
        case (_, .deadlineReached):
            return pacing.deadlineReached(now: now)
        }
    }
}

extension FramePacer.Action: FramePacingAction {}
