// Runs blocking work (waiting for a child process) off Swift's cooperative thread pool.
import Foundation

/// On a 2-core machine the cooperative pool has two threads; a test that blocks them
/// waiting for a process would starve the in-process servers it talks to.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { c in
        Thread.detachNewThread { c.resume(with: Result { try work() }) }
    }
}
