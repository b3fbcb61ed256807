// Real-time scheduling (SCHED_FIFO) for the AcquireNotify reader thread, when allowed.
import Foundation
import Glibc
import Synchronization

/// Lets the AcquireNotify reader thread (`NotifySocket`) run under `SCHED_FIFO` at a low
/// real-time priority. The D-Bus loop threads stay ordinary: they share libdbus' locks
/// (no priority inheritance) with ordinary sending threads; with real-time loop threads
/// `bench dbus-signals` went from p99 3.8 ms to 255 ms on a loaded machine (see DBusEventLoop.run).
///
/// Why: on a busy machine most of a notification's latency is the time its receiving thread,
/// woken by the kernel, waits for a core behind ordinary (SCHED_OTHER) work; a real-time
/// thread runs at once. The reader does a few microseconds of bounded work per message
/// (read, decode, hand over) and then sleeps, so it cannot starve the machine (and the
/// kernel's RT throttling caps it at 95% of a core anyway); the locks it takes are Swift
/// `Mutex`es held briefly. The tangible engine, outputs and everything on the Swift task
/// pool stay ordinary. Event handlers called on it (`PercLink`'s `onEvent`) must be quick
/// and must not block.
///
/// Priority: `$PERCBRIDGE_RT_PRIORITY` (1…99), default 10; 0 turns it off. Needs root,
/// CAP_SYS_NICE or an RLIMIT_RTPRIO at least that high (systemd: `LimitRTPRIO=10`); without
/// them the thread stays ordinary and `status` says why.
enum ReceiveThreadPriority {
    /// The outcome of the last promotion attempt (for benches and diagnostics).
    static var status: String { lastStatus.withLock { $0 } }

    private static let lastStatus = Mutex("not tried")

    static let requested: Int32 = {
        guard let text = ProcessInfo.processInfo.environment["PERCBRIDGE_RT_PRIORITY"] else { return 10 }
        guard let value = Int32(text), (0...99).contains(value) else { return 10 }
        return value
    }()

    /// Puts the calling thread under SCHED_FIFO at `requested`; true when it is.
    @discardableResult
    static func promoteCurrentThread() -> Bool {
        guard requested > 0 else {
            lastStatus.withLock { $0 = "off (PERCBRIDGE_RT_PRIORITY=0)" }
            return false
        }
        var param = sched_param()
        param.sched_priority = requested
        let rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param)
        lastStatus.withLock {
            $0 = rc == 0 ? "SCHED_FIFO \(requested)"
                : "ordinary (SCHED_FIFO \(requested) not permitted: \(String(cString: strerror(rc))); needs CAP_SYS_NICE or LimitRTPRIO)"
        }
        return rc == 0
    }
}
