// When the Wayland overlay commits a frame and which frames it reports as presented (pure: time is an argument).

/// Paces the Wayland overlay's frames like `FramePacer` does on X11: latest show() wins, one frame
/// in flight at a time, from its commit until the compositor's `wp_presentation_feedback` says
/// `presented` or `discarded` (or, without wp_presentation, until its frame callback is done plus
/// one refresh period).
///
/// A `discarded` frame was never on screen (the compositor dropped that surface state: the output
/// was off or the surface hidden): it gets no report, and the overlay draws on at once. Reporting it
/// at the next presented frame instead would date a plan by a frame that showed another one.
struct WaylandFramePacer {
    enum Mode: Equatable {
        /// `wp_presentation_feedback.presented` carries the time.
        case presentation
        /// The frame callback's arrival plus one refresh `period` (seconds).
        case estimate(period: Double)
    }

    /// Idle, a frame awaiting its feedback (since its commit) or holding (estimate mode), as on X11.
    typealias State = FramePacing<Action>.State

    enum Event: Equatable {
        case requested(FramePacer.Request)
        case presented(frame: UInt32, at: Double)
        case discarded(frame: UInt32)
        /// The frame callback of `frame` is done (estimate mode).
        case frameDone(frame: UInt32, at: Double)
        case deadlineReached
    }

    enum Action: Equatable {
        case draw(FramePacer.Request, frame: UInt32)
        case reportPresented(serial: UInt64, at: Double)
        /// The compositor discarded the frame: no report.
        case discarded(serial: UInt64, frame: UInt32)
        /// Nothing came for this frame within `completionTimeout`: no report, draw on.
        case abandon(serial: UInt64, frame: UInt32)
    }

    /// As on X11: many refresh periods, so only a compositor that will never answer trips it.
    static let completionTimeout = FramePacer.completionTimeout

    private(set) var mode: Mode
    private var pacing = FramePacing<Action>()

    init(mode: Mode) { self.mode = mode }

    var state: State { pacing.state }
    var waiting: FramePacer.Request? { pacing.waiting }

    /// From now on frames are timed by their frame callback plus `period`: for a compositor that
    /// announces wp_presentation but never answers its feedback (sway 1.7 on wlroots 0.15's headless
    /// backend, whose outputs send no present events). Frames drawn after this call are timed so.
    mutating func fallBackToEstimate(period: Double) {
        mode = .estimate(period: period)
    }

    var deadline: Double? { pacing.deadline }

    mutating func handle(_ event: Event, now: Double) -> [Action] {
        switch (state, event) {
        case (_, .requested(let request)):
            return pacing.request(request, now: now)
        case (.awaiting(let frame, let serial, _), .presented(let done, let at)) where done == frame && mode == .presentation:
            return pacing.presented(serial: serial, at: at, now: now)
        case (.awaiting(let frame, let serial, _), .discarded(let done)) where done == frame:
            return [.discarded(serial: serial, frame: frame)] + pacing.release(now: now)
        case (.awaiting(let frame, let serial, _), .frameDone(let done, let at)) where done == frame:
            guard case .estimate(let period) = mode else { return [] }
            return pacing.hold(serial: serial, shownAt: at + period, now: now)
        case (_, .presented), (_, .discarded), (_, .frameDone):
            // A frame abandoned earlier, or a callback of the other mode: not ours to report.
            return []
        case (_, .deadlineReached):
            return pacing.deadlineReached(now: now)
        }
    }
}

extension WaylandFramePacer.Action: FramePacingAction {}
