// When the frame clock cuts the next frame: on input (event mode), a fixed rate, or the app's presented frames (pure).
import MTKTangibles

/// The frame clock's timing decisions, without threads or clock reads (tests drive it).
public struct TickSchedule: Sendable {
    public enum Mode: Hashable, Sendable, Codable {
        /// Tick at `hz` (default 120).
        case fixedRate(hz: Double)
        /// Cut a frame whenever the app reports a presented frame; if reports stop, fall back
        /// to ticking at `fallbackHz` so inputs keep flowing.
        case followPresented(fallbackHz: Double)
        /// Cut a frame as soon as an input frame completes or a sensor event arrives, at most
        /// `maxHz` a second: a token bucket of `burst` cuts refilled at `maxHz` (when it is
        /// empty, later inputs wait and are coalesced into the next frame; `burst` 1 is a
        /// fixed minimum spacing of `1 / maxHz`). After each step the core says when time
        /// alone next changes something (`wake(_:occupied:)`): every frame, cut every
        /// `1 / busyHz` (check rounds, the time window, traces); at a time, cut then (a
        /// resting PERC's stationary check); never, sleep until input (with a keep-alive
        /// frame each `keepAlive` while anything is on the surface). Presented reports cut
        /// frames as in `followPresented` when `followPresented` is true.
        case events(maxHz: Double, burst: Int = TickSchedule.defaultBurst, busyHz: Double, followPresented: Bool)
    }

    /// `[clock] max_burst`'s default: cuts that may follow each other at once.
    public static let defaultBurst = 4

    public let mode: Mode
    /// The fixed/fallback period; in event mode the busy period.
    public let period: Seconds
    /// Event mode: the time one cut's token takes to come back (`1 / maxHz`).
    let minInterval: Seconds
    /// Event mode: the bucket's size (cuts that may follow each other without waiting).
    let burst: Double
    /// Event mode: tokens left in the bucket right after `lastCut`.
    private var tokensAfterLastCut: Double = 0
    private(set) var nextDeadline: Seconds = 0
    private(set) var lastCut: Seconds = -.infinity
    /// Deadlines skipped because a tick ran later than one whole period.
    public private(set) var missedTicks = 0
    /// Event mode: when the last step said time alone next changes something, and whether
    /// anything is on the surface (see `wake(_:occupied:)`).
    private(set) var wakeRule: (wake: Wake, occupied: Bool) = (.never, false)
    /// Event mode: with something on the surface, a frame at least this often even when
    /// nothing changes, so apps and TUIO receivers that lost a datagram see the state again.
    public static let keepAlive: Seconds = 1

    public init(mode: Mode) {
        self.mode = mode
        switch mode {
        case .fixedRate(let hz): period = 1 / max(hz, 0.1); minInterval = 0; burst = 1
        case .followPresented(let hz): period = 1 / max(hz, 0.1); minInterval = 0; burst = 1
        case .events(let maxHz, let burst, let busyHz, _):
            period = 1 / max(busyHz, 0.1)
            minInterval = 1 / max(maxHz, 1)
            self.burst = Double(max(burst, 1))
        }
    }

    var isEventDriven: Bool { if case .events = mode { true } else { false } }
    private var follows: Bool {
        switch mode {
        case .followPresented: true
        case .events(_, _, _, let f): f
        case .fixedRate: false
        }
    }

    public mutating func start(at now: Seconds) {
        nextDeadline = isEventDriven ? .infinity : now + period
    }

    /// Event mode, after each step: when time alone next changes what the core decides
    /// (`FrameResult.wake`), and whether a tangible or a touch is on the surface. The next
    /// deadline is one busy period after the last cut while `wake` is every frame; its time
    /// (not sooner than one busy period) when it names one; none when it is never — but at
    /// most `keepAlive` after the last cut while the surface is occupied.
    public mutating func wake(_ wake: Wake, occupied: Bool) {
        guard isEventDriven else { return }
        wakeRule = (wake, occupied)
        nextDeadline = deadline(after: lastCut.isFinite ? lastCut : 0)
    }

    private func deadline(after c: Seconds) -> Seconds {
        var d: Seconds
        switch wakeRule.wake {
        case .everyFrame: d = c + period
        case .at(let t): d = max(t, c + period)
        case .never: d = .infinity
        }
        if wakeRule.occupied { d = min(d, c + Self.keepAlive) }
        return d
    }

    /// Event mode: inputs are waiting. Returns the frame time to cut at now, or nil when the
    /// coalescing cap says to wait until `earliestInputCut` (the inputs stay in the frame).
    mutating func inputPending(now: Seconds) -> Seconds? {
        guard isEventDriven else { return nil }
        guard now >= earliestInputCut else { return nil }
        return cut(at: now)
    }

    /// Event mode: when waiting inputs may be cut at the earliest (when the bucket holds a
    /// whole token again).
    var earliestInputCut: Seconds {
        lastCut.isFinite ? lastCut + max(0, 1 - tokensAfterLastCut) * minInterval : -.infinity
    }

    /// Tokens in the bucket at `time` (not before `lastCut`).
    private func tokens(at time: Seconds) -> Double {
        guard lastCut.isFinite else { return burst }
        return min(burst, tokensAfterLastCut + max(0, time - lastCut) / minInterval)
    }

    private mutating func cut(at now: Seconds) -> Seconds {
        let c = max(now, lastCut)
        // Every cut takes a token; a timer's or a presented report's cut may find the bucket
        // empty and does not wait for it (they are not the inputs the cap is for).
        tokensAfterLastCut = max(0, tokens(at: c) - 1)
        lastCut = c
        if isEventDriven { nextDeadline = deadline(after: c) }
        return c
    }

    /// The timer woke at `now` (at or after `nextDeadline`). Returns the frame time to cut at.
    mutating func timerFired(now: Seconds) -> Seconds? {
        guard now >= nextDeadline else { return nil }
        if isEventDriven { return cut(at: now) }
        nextDeadline += period
        if now >= nextDeadline {
            // Overrun: skip the deadlines we cannot make instead of bursting ticks.
            let behind = ((now - nextDeadline) / period).rounded(.down) + 1
            missedTicks += Int(behind)
            nextDeadline += behind * period
        }
        let cut = max(now, lastCut)
        lastCut = cut
        return cut
    }

    /// The app reports that a frame was presented at `time`. In follow mode this cuts a frame
    /// at that time (never earlier than the previous one) and pushes the fallback deadline.
    public mutating func presented(at time: Seconds, now: Seconds) -> Seconds? {
        guard follows, time.isFinite, time > lastCut else { return nil }
        if isEventDriven { return cut(at: time) }
        lastCut = time
        nextDeadline = max(nextDeadline, now + period)
        return time
    }
}
