// Hands monitor's events and status changes to one writer thread, which prints them as they come.
import Dispatch
import Foundation
import Glibc
import MTKTangibles
import Synchronization
import PercSystem
import PercBlueZ

/// The output of `percbridge monitor`: the links' threads hand over, one thread writes.
///
/// `event` and `status` are called on the threads that receive notifications (the
/// AcquireNotify reader, real-time, which serves every PERC; the D-Bus loop for StartNotify,
/// which also carries every BlueZ signal). They only queue what happened (and read the
/// wall clock); they never format and never write. Before, they wrote to stdout themselves:
/// a reader that paused (a terminal scrolled back, a pipe not drained) filled the pipe, the
/// write blocked, and with it the receiving of every PERC — notifications then got their
/// `arrival` stamp when the reader came back, and on StartNotify the link handling stalled.
///
/// The writer thread wakes as soon as something is queued, formats everything queued since
/// its last round and writes it with one `write`: one line at a time while it keeps up, a
/// whole burst at once when several PERCs notify together.
/// Nothing waits for a buffer to fill or for a timer. When stdout is not read at all the
/// queue stops at `maxQueued` items; what comes after is counted and reported on stderr.
final class MonitorOutput: Sendable {
    /// About 20 s of 32 PERCs × 100 Hz.
    static let maxQueued = 65_536

    private struct Queue {
        var items: [MonitorFormatter.Item] = []
        var dropped = 0
        var finishing = false
    }

    private let queue = Mutex(Queue())
    /// Signalled when the queue goes from empty to not empty, and to finish.
    private let wake = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    init(addresses: [String], json: Bool) {
        let formatter = MonitorFormatter(addresses: addresses, json: json)
        let thread = Thread { [self] in
            ThreadName.setCurrent("pb-monitor-out")
            // Real-time like the AcquireNotify reader whose events it prints (when allowed), so
            // that on a busy machine a line waits for a core once (its reader's) rather than
            // twice. Its work per line is small and bounded, and it sleeps in `write` while
            // the reader does not read.
            ReceiveThreadPriority.promoteCurrentThread(as: .notifySocket)
            write(with: formatter)
        }
        thread.start()
    }

    func event(_ event: SensorEvent, lostSoFar: Int) {
        enqueue(.event(event, lostSoFar: lostSoFar, wall: .now()))
    }

    func status(tangible: TangibleID, _ status: PercLinkStatus) {
        enqueue(.status(tangible, status, arrival: MonotonicClock.now(), wall: .now()))
    }

    /// Writes what is still queued and ends the writer thread; returns when it has ended.
    /// (Blocks its caller for as long as that takes: called once, at the end of monitor.)
    func finish() {
        queue.withLock { $0.finishing = true }
        wake.signal()
        ended.wait()
    }

    private func enqueue(_ item: MonitorFormatter.Item) {
        let signal = queue.withLock { q -> Bool in
            guard !q.finishing else { return false }
            guard q.items.count < Self.maxQueued else { q.dropped += 1; return false }
            q.items.append(item)
            return q.items.count == 1
        }
        if signal { wake.signal() }
    }

    // MARK: the writer thread

    private func write(with formatter: MonitorFormatter) {
        var formatter = formatter
        var batch: [MonitorFormatter.Item] = []
        var out: [UInt8] = []
        out.reserveCapacity(1 << 16)
        var broken = false
        var droppedSoFar = 0
        while true {
            wake.wait()
            while true {
                let (dropped, finishing) = queue.withLock { q -> (Int, Bool) in
                    swap(&q.items, &batch)
                    return (q.dropped, q.finishing)
                }
                if batch.isEmpty {
                    if finishing {
                        if dropped > 0 { Self.note("\(dropped) lines in all were not printed: stdout was not read fast enough") }
                        ended.signal()
                        return
                    }
                    break
                }
                for item in batch { formatter.append(item, to: &out) }
                batch.removeAll(keepingCapacity: true)
                if !broken { broken = !Self.writeAll(out) }
                out.removeAll(keepingCapacity: true)
                if dropped > droppedSoFar {
                    Self.note("\(dropped - droppedSoFar) lines were not printed: stdout was not read fast enough")
                    droppedSoFar = dropped
                }
            }
        }
    }

    /// Writes all of `bytes` to stdout; false when stdout is gone (EPIPE) or broken.
    private static func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if n > 0 { offset += n; continue }
                if n < 0 && errno == EINTR { continue }
                return false
            }
            return true
        }
    }

    private static func note(_ text: String) {
        BlueZCLI.note("percbridge monitor: \(text)")
    }
}
