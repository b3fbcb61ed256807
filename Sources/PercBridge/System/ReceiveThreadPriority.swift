// Real-time scheduling (SCHED_FIFO) for the threads that receive BLE notifications, when allowed.
import Foundation
import Glibc
import Synchronization

/// Lets the receive threads (each D-Bus connection's loop thread, the AcquireNotify reader)
/// run under `SCHED_FIFO` at a low real-time priority.
///
/// Why: on a busy machine most of a notification's latency is the time its receiving thread,
/// woken by the kernel, waits for a core behind ordinary (SCHED_OTHER) work; a real-time
/// thread runs at once. These threads do a few microseconds of bounded work per message
/// (read, decode, hand over) and then sleep, so they cannot starve the machine (and the
/// kernel's RT throttling caps them at 95% of a core anyway). The tangible engine, outputs
/// and everything on the Swift task pool stay ordinary.
///
/// Priority: `$PERCBRIDGE_RT_PRIORITY` (1…99), default 10; 0 turns it off. Needs root,
/// CAP_SYS_NICE or an RLIMIT_RTPRIO at least that high (systemd: `LimitRTPRIO=10`); without
/// them the threads stay ordinary and `status` says why.
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
