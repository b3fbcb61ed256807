// What other threads share with an overlay's own thread (X11 or Wayland): the newest request, stop, the end.
import Foundation
import Glibc
import Logging
import Synchronization

/// The hand-over between the overlay's callers and its drawing thread, the same for both
/// display servers:
/// - `show()` puts the newest request in a one-slot inbox (latest wins; never blocks on the
///   display server) and pokes the eventfd the thread polls; the thread takes it with
///   `takeRequest()`.
/// - `stop()` asks the thread to end and waits up to 2 s for it (`threadEnded()`); called on
///   the thread itself (from a callback), it only asks.
final class OverlayThreadControl: Sendable {
    let wakeup: OverlayWakeup
    /// "X11" or "Wayland", for the log line when the thread does not end.
    private let name: String
    private let logger: Logger
    private let inbox = Mutex<FramePacer.Request?>(nil)
    private let stopRequested = Atomic<Bool>(false)
    private let ended = Atomic<Bool>(false)
    private let loopThread = Atomic<UInt>(0)
    private let endSignal = DispatchSemaphore(value: 0)

    init(wakeup: OverlayWakeup, name: String, logger: Logger) {
        self.wakeup = wakeup
        self.name = name
        self.logger = logger
    }

    // MARK: other threads

    func show(_ request: FramePacer.Request) {
        guard !stopRequested.load(ordering: .acquiring) else { return }
        inbox.withLock { $0 = request }
        wakeup.poke()
    }

    func stop() {
        stopRequested.store(true, ordering: .releasing)
        wakeup.poke()
        guard loopThread.load(ordering: .acquiring) != UInt(pthread_self()) else { return }
        guard !ended.load(ordering: .acquiring) else { return }
        if endSignal.wait(timeout: .now() + 2) == .success {
            endSignal.signal()  // for the next waiter
        } else {
            logger.warning("overlay: the \(name) thread did not end within 2 s of stop()")
        }
    }

    var hasEnded: Bool { ended.load(ordering: .acquiring) }
    var stopping: Bool { stopRequested.load(ordering: .acquiring) }

    // MARK: the overlay's thread

    /// First thing on the thread: `stop()` called from it then only asks.
    func threadStarted() { loopThread.store(UInt(pthread_self()), ordering: .releasing) }

    /// The newest request since the last call, if any.
    func takeRequest() -> FramePacer.Request? {
        inbox.withLock { slot in defer { slot = nil }; return slot }
    }

    /// Last thing on the thread: wakes a waiting `stop()`.
    func threadEnded() {
        ended.store(true, ordering: .releasing)
        endSignal.signal()
    }
}
