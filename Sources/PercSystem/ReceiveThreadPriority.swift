// Real-time scheduling (SCHED_FIFO) for the threads on the input → output path, when allowed.
import Foundation
import Glibc
import Synchronization

/// Lets the threads on the path from an input to the outputs run under `SCHED_FIFO` at a low
/// real-time priority: the AcquireNotify reader (`NotifySocket`, the fd path), the frame
/// clock's thread (`FrameTicker`: cut, engine step, TUIO out) and the touch input threads
/// (`InputEventLoop`, evdev readers) by default, the D-Bus event loop threads
/// (`DBusEventLoop`, the StartNotify path) on request.
///
/// Why: on a busy machine most of a notification's latency is the time its receiving thread,
/// woken by the kernel, waits for a core behind ordinary (SCHED_OTHER) work; a real-time
/// thread runs at once. The readers do bounded work per message (read, decode, hand over)
/// and then sleep; the frame thread does one engine step and the outputs per frame, at most
/// `max_rate_hz` frames a second, on bounded tables and queues. So they cannot starve the
/// machine (and the kernel's RT throttling caps them at 95% of a core anyway). The web
/// server, the apps' sockets and everything on the Swift task pool stay ordinary. Event
/// handlers called on these threads (`PercLink`'s `onEvent`, signal handlers) must be quick
/// and must not block.
///
/// The frame thread joined in issue 13: with two CPU hogs beside `bench service`, touch →
/// TUIO p99 was 4.5–4.9 ms with ordinary threads and 0.7–0.8 ms real-time (docs/benchmarks.md).
///
/// Why the D-Bus loops stay ordinary by default: in interleaved runs of `bench notify`
/// (docs/benchmarks.md) a real-time loop cut our own share of a StartNotify notification
/// (wake-up → SensorEvent) from p50 ≈ 0.14 to 0.04 ms, but end to end it gained nothing:
/// on two shared cores it preempts dbus-daemon and the sender, and the signal then waits
/// there instead (median p99 5.2 ms with, 4.7 ms without). A loop thread shares libdbus'
/// I/O path with ordinary threads that send on the same connection; `DBusEventLoop` backs
/// off instead of spinning while a sender holds it, which keeps the option safe (without
/// that, a real-time loop spun against a preempted sender: `bench dbus-signals` p99 255 ms).
///
/// Priority: `$PERCBRIDGE_RT_PRIORITY` (1…99), default 10; 0 turns it off for all of them.
/// `$PERCBRIDGE_DBUS_RT=1` makes the D-Bus loop threads real-time too. Needs root,
/// CAP_SYS_NICE or an RLIMIT_RTPRIO at least that high (systemd: `LimitRTPRIO=10`); without
/// them the threads stay ordinary and `status(of:)` says why.
public enum ReceiveThreadPriority {
    public enum Role: String, Sendable {
        case notifySocket = "AcquireNotify reader"
        case dbusLoop = "D-Bus loop"
        /// The frame clock's thread (cuts frames, steps the engine, sends TUIO).
        case frameClock = "frame clock"
        /// The touch input threads (TUIO/JSON event loop, evdev readers).
        case touchInput = "touch input"
        /// The web server's event loop, which writes the frames to the apps (`WebEventLoop`).
        case appOutput = "app output"
    }

    /// The outcome of the last promotion attempt of a role (for benches and diagnostics).
    public static func status(of role: Role) -> String { lastStatus.withLock { $0[role] ?? "not tried" } }

    private static let lastStatus = Mutex([Role: String]())

    static let requested: Int32 = {
        guard let text = ProcessInfo.processInfo.environment["PERCBRIDGE_RT_PRIORITY"] else { return 10 }
        guard let value = Int32(text), (0...99).contains(value) else { return 10 }
        return value
    }()

    /// True when `$PERCBRIDGE_DBUS_RT` is 1: the D-Bus loop threads run real-time too.
    static let dbusLoops: Bool = ProcessInfo.processInfo.environment["PERCBRIDGE_DBUS_RT"] == "1"

    /// Puts the calling thread under SCHED_FIFO at `requested`; true when it is.
    @discardableResult
    public static func promoteCurrentThread(as role: Role = .notifySocket) -> Bool {
        guard requested > 0 else {
            lastStatus.withLock { $0[role] = "ordinary (PERCBRIDGE_RT_PRIORITY=0)" }
            return false
        }
        guard role != .dbusLoop || dbusLoops else {
            lastStatus.withLock { $0[role] = "ordinary (the default; PERCBRIDGE_DBUS_RT=1 makes them real-time)" }
            return false
        }
        var param = sched_param()
        param.sched_priority = requested
        let rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param)
        lastStatus.withLock {
            $0[role] = rc == 0 ? "SCHED_FIFO \(requested)"
                : "ordinary (SCHED_FIFO \(requested) not permitted: \(String(cString: strerror(rc))); needs CAP_SYS_NICE or LimitRTPRIO)"
        }
        return rc == 0
    }

    /// Puts the calling thread back to ordinary scheduling (SCHED_OTHER) when it runs
    /// real-time; `reason` goes into `status(of:)`. True when it was real-time and is not now.
    @discardableResult
    public static func demoteCurrentThread(as role: Role, reason: String) -> Bool {
        var policy: Int32 = 0
        var param = sched_param()
        guard pthread_getschedparam(pthread_self(), &policy, &param) == 0, policy == SCHED_FIFO || policy == SCHED_RR else { return false }
        param.sched_priority = 0
        guard pthread_setschedparam(pthread_self(), SCHED_OTHER, &param) == 0 else { return false }
        lastStatus.withLock { $0[role] = "ordinary (\(reason))" }
        return true
    }
}
