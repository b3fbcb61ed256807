// Wall-clock event times (a device that refused EVIOCSCLOCKID) on the monotonic timeline, kept sane when the wall clock steps.
import MTKTangibles

/// Maps the wall-clock times of a device that refused EVIOCSCLOCKID onto CLOCK_MONOTONIC by
/// the offset read when the events were read. The wall clock can step (NTP or a VM's clock
/// being set: CI saw one go back 62 s in the middle of a replay) between the kernel stamping
/// an event and the read, and then the mapped time lands in the future or far in the past.
/// Such a time is replaced by the read's arrival time, and times never go backwards, so the
/// tracker sees touches when they came, never tens of seconds off. Pure: the caller reads
/// the clocks.
struct WallClockEventTimes: Sendable {
    /// How much older than its read an event may be and keep its own time: the kernel's
    /// buffer is read at once by a thread of its own, so older than this means the wall clock
    /// moved forward between the stamp and the read.
    static let maxAge: Seconds = 1
    /// How far after its read an event's time may seem before the wall clock is taken to have
    /// stepped back (the offset is read to within tens of microseconds).
    static let maxLead: Seconds = 0.05
    /// Notices come at most this often; one due sooner waits for a later read.
    static let noticeInterval: Seconds = 1

    /// Events whose time was replaced by their arrival, ever.
    private(set) var replaced = 0
    private var last: Seconds = -.infinity
    private var off = false
    private var lastNotice: Seconds = -.infinity
    /// The last change of state not said yet.
    private var unsaid: String?

    /// The monotonic time of an event stamped `wall` by the wall clock, read at `arrival`
    /// when the wall clock was `shift` ahead of the monotonic one.
    mutating func map(wall: Seconds, shift: Seconds, arrival: Seconds) -> Seconds {
        let mapped = wall - shift
        let skew = mapped - arrival
        var time = Swift.min(mapped, arrival)  // the offset's own jitter: microseconds
        if skew > Self.maxLead || skew < -Self.maxAge {
            time = arrival
            replaced += 1
            if !off {
                off = true
                unsaid = "event times are \(Self.describe(skew)) the time they were read (the wall clock stepped?); "
                    + "stamping them with the time they were read until they agree again"
            }
        } else if off {
            off = false
            unsaid = "event times agree with the time they were read again"
        }
        time = Swift.max(time, last)
        last = time
        return time
    }

    /// The line to log, at `now`, about the last change of state not said yet: at most one a
    /// second (one due sooner waits for a later read); nil if there is none.
    mutating func notice(at now: Seconds) -> String? {
        guard let text = unsaid, now - lastNotice >= Self.noticeInterval else { return nil }
        lastNotice = now
        unsaid = nil
        return text + " (\(replaced) replaced so far)"
    }

    private static func describe(_ skew: Seconds) -> String {
        let s = (abs(skew) * 1000).rounded() / 1000
        return skew > 0 ? "\(s) s after" : "\(s) s before"
    }
}
