// Control calls that wait for the pipeline (three still traces, a calibration result) without blocking it.
import LightCheck
import Synchronization
import PercRuntime

/// Control calls park here until a condition holds after some frame, or a deadline passes.
/// The frame loop calls `frameDone` inside the pipeline lock; a check must be quick and must
/// not wait. The waiting call holds no lock: it is a suspended continuation.
final class FrameWaiters: Sendable {
    private let waiters = Mutex<[Int: any FrameWaiter]>([:])
    private let nextID = Mutex(0)

    /// Waits until `check` returns a value (or throws) after a frame; fails with
    /// `timeoutError()` after `timeout`, and at once when the task is cancelled.
    func wait<T: Sendable>(timeout: Duration, timeoutError: @escaping @Sendable () -> any Error,
                           _ check: @escaping @Sendable (FrameView) throws -> T?) async throws -> T {
        let id = nextID.withLock { $0 += 1; return $0 }
        let waiter = Waiter<T>(check: check)
        defer { _ = waiters.withLock { $0.removeValue(forKey: id) } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
                waiter.attach(c)
                waiters.withLock { $0[id] = waiter }
                let timer = Task {
                    try? await Task.sleep(for: timeout)
                    waiter.finish(.failure(timeoutError()))
                }
                waiter.onFinish { timer.cancel() }
            }
        } onCancel: {
            waiter.finish(.failure(CancellationError()))
        }
    }

    /// After each frame (pipeline lock held): runs every waiter's check.
    func frameDone(_ view: FrameView) {
        let current = waiters.withLock { Array($0.values) }
        for w in current { w.poll(view) }
    }

    var count: Int { waiters.withLock { $0.count } }
}

private protocol FrameWaiter: Sendable {
    func poll(_ view: FrameView)
}

/// One waiting call: its check and its continuation, resumed exactly once.
private final class Waiter<T: Sendable>: FrameWaiter {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var early: Result<T, any Error>?
        var done = false
        var cleanup: (@Sendable () -> Void)?
    }
    private let check: @Sendable (FrameView) throws -> T?
    private let state = Mutex(State())

    init(check: @escaping @Sendable (FrameView) throws -> T?) { self.check = check }

    func attach(_ c: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = state.withLock { s in
            if let e = s.early { return e }
            s.continuation = c
            return nil
        }
        if let early { c.resume(with: early) }
    }

    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let run = state.withLock { s in
            if s.done { return true }
            s.cleanup = cleanup
            return false
        }
        if run { cleanup() }
    }

    func poll(_ view: FrameView) {
        guard !state.withLock({ $0.done }) else { return }
        do {
            if let v = try check(view) { finish(.success(v)) }
        } catch {
            finish(.failure(error))
        }
    }

    func finish(_ result: Result<T, any Error>) {
        let (c, cleanup): (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) = state.withLock { s in
            guard !s.done else { return (nil, nil) }
            s.done = true
            if s.continuation == nil { s.early = result }
            defer { s.continuation = nil; s.cleanup = nil }
            return (s.continuation, s.cleanup)
        }
        c?.resume(with: result)
        cleanup?()
    }
}
