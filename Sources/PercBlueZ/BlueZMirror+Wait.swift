// Waiting for a condition on the mirror: checked now and on every change, never polled.
import Synchronization

extension BlueZMirror {
    /// Returns the first non-nil result of `condition`, checked now and after every change
    /// of the mirror, or nil after `timeout` (or when the task is cancelled). The listener is
    /// removed on every way out.
    func wait<T: Sendable>(timeout: Duration, _ condition: @escaping @Sendable (BlueZMirror) -> T?) async -> T? {
        if let now = condition(self) { return now }
        let box = WaitBox<T>()
        let id = addListener { [weak self] _ in
            guard let self, let value = condition(self) else { return }
            box.finish(value)
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            box.finish(nil)
        }
        defer { removeListener(id); timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
                box.install(continuation)
                // A change may have landed between the first check and the listener.
                if let now = condition(self) { box.finish(now) }
            }
        } onCancel: {
            box.finish(nil)
        }
    }
}

/// Resumes a continuation exactly once, whoever comes first (condition, timeout, cancel).
private final class WaitBox<T: Sendable>: Sendable {
    private let state = Mutex<(CheckedContinuation<T?, Never>?, T??)>((nil, nil))

    func install(_ c: CheckedContinuation<T?, Never>) {
        let early = state.withLock { s -> T?? in
            if let result = s.1 { return result }
            s.0 = c
            return nil
        }
        if let early { c.resume(returning: early) }
    }

    func finish(_ value: T?) {
        let c = state.withLock { s -> CheckedContinuation<T?, Never>? in
            guard s.1 == nil else { return nil }
            s.1 = .some(value)
            defer { s.0 = nil }
            return s.0
        }
        c?.resume(returning: value)
    }
}
