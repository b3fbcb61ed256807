// When the frame clock cuts the next frame: a fixed rate, or the app's presented frames (pure).
import MTKTangibles

/// The frame clock's timing decisions, without threads or clock reads (tests drive it).
public struct TickSchedule: Sendable {
    public enum Mode: Hashable, Sendable, Codable {
        /// Tick at `hz` (default 120).
        case fixedRate(hz: Double)
        /// Cut a frame whenever the app reports a presented frame; if reports stop, fall back
        /// to ticking at `fallbackHz` so inputs keep flowing.
        case followPresented(fallbackHz: Double)
    }

    public let mode: Mode
    public let period: Seconds
    public private(set) var nextDeadline: Seconds = 0
    public private(set) var lastCut: Seconds = -.infinity
    /// Deadlines skipped because a tick ran later than one whole period.
    public private(set) var missedTicks = 0

    public init(mode: Mode) {
        self.mode = mode
        switch mode {
        case .fixedRate(let hz): period = 1 / max(hz, 0.1)
        case .followPresented(let hz): period = 1 / max(hz, 0.1)
        }
    }

    public mutating func start(at now: Seconds) {
        nextDeadline = now + period
    }

    /// The timer woke at `now` (at or after `nextDeadline`). Returns the frame time to cut at.
    public mutating func timerFired(now: Seconds) -> Seconds? {
        guard now >= nextDeadline else { return nil }
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
        guard case .followPresented = mode, time.isFinite, time > lastCut else { return nil }
        lastCut = time
        nextDeadline = max(nextDeadline, now + period)
        return time
    }
}
