// Shared by the overlay's X11 tests: the suite that runs them one at a time, the reports an overlay
// delivered, waiting with a deadline.
import Foundation
import Glibc
import Logging
import Synchronization
import Testing
@testable import PercOverlay
import PercTestSupport

/// Every test against a real Xvfb runs inside this suite, one at a time: each starts its own
/// server, and two at once on a 2-core machine would make the timing checks meaningless.
@Suite(.serialized) struct X11Tests {}

/// What one overlay reported: presented frames and losses, with when the test received them.
final class OverlayReports: Sendable {
    struct Presented: Equatable {
        var serial: UInt64
        var at: Double
        var receivedAt: Double
    }

    private let presented = Mutex<[Presented]>([])
    private let lost = Mutex<[X11Error]>([])

    var presentedSoFar: [Presented] { presented.withLock { $0 } }
    var lostSoFar: [X11Error] { lost.withLock { $0 } }

    /// An overlay on `xvfb` that reports here.
    func overlay(on xvfb: Xvfb, usePresent: Bool = true) throws -> X11Overlay {
        try X11Overlay(display: xvfb.display, logger: Logger(label: "test.overlay"), usePresent: usePresent,
                       onPresented: { [self] serial, at in
                           let receivedAt = monotonicNow()
                           presented.withLock { $0.append(Presented(serial: serial, at: at, receivedAt: receivedAt)) }
                       },
                       onLost: { [self] error in lost.withLock { $0.append(error) } })
    }

    /// The report for `serial`, waiting up to `timeout` s.
    func waitForPresented(_ serial: UInt64, timeout: Double = 2) -> Presented? {
        var found: Presented?
        _ = waitUntil(timeout: timeout) {
            found = presentedSoFar.first { $0.serial == serial }
            return found != nil
        }
        return found
    }
}

/// CLOCK_MONOTONIC in seconds, the clock of the presented reports.
func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Polls `condition` every 10 ms for up to `timeout` s.
@discardableResult
func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = monotonicNow() + timeout
    while !condition() {
        guard monotonicNow() < deadline else { return false }
        usleep(10_000)
    }
    return true
}

/// This process's CPU time (user + system) in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
