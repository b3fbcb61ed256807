// Glue between the X11 layer and the protocol client: discs across, presented reports back, a lost display.
import PercOverlay
import PercOverlayClient
import Synchronization

/// The client draws through this; X11Overlay takes pixels already.
struct X11Display: OverlayDisplay {
    let x11: X11Overlay
    init(_ x11: X11Overlay) { self.x11 = x11 }
    func show(_ discs: [ScreenDisc], serial: UInt64) {
        x11.show(discs.map { OverlayDisc(x: $0.x, y: $0.y, radius: $0.radius, white: $0.white) }, serial: serial)
    }
}

/// The X11 layer reports presented frames before the client exists (it is made first, to
/// learn the outputs); this hands them on once it does.
final class PresentedRelay: Sendable {
    let client = Mutex<OverlayClient?>(nil)
    func presented(serial: UInt64, at: Double) {
        client.withLock { $0 }?.presented(serial: serial, at: at)
    }
}

/// The display went away: fired once by the X11 layer, awaited by the run loop.
final class LostSignal: Sendable {
    private let state = Mutex<(reason: String?, waiter: CheckedContinuation<String?, Never>?, cancelled: Bool)>((nil, nil, false))
    var fired: Bool { state.withLock { $0.reason != nil } }

    func fire(_ reason: String) {
        let w = state.withLock { s -> CheckedContinuation<String?, Never>? in
            guard s.reason == nil else { return nil }
            s.reason = reason
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume(returning: reason)
    }

    /// Returns the reason once fired; nil if the task is cancelled first.
    func wait() async -> String? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<String?, Never>) in
                let now = state.withLock { s -> String?? in
                    if let r = s.reason { return .some(r) }
                    if s.cancelled { return .some(nil) }
                    s.waiter = c
                    return nil
                }
                if let now { c.resume(returning: now) }
            }
        } onCancel: {
            let w = state.withLock { s -> CheckedContinuation<String?, Never>? in
                s.cancelled = true
                defer { s.waiter = nil }
                return s.waiter
            }
            w?.resume(returning: nil)
        }
    }
}
