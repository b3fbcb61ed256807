// Shares the pipeline between the frame loop and the control API: one at a time, never both.
import Foundation

/// `@unchecked` because the pipeline (a non-Sendable class holding the pure core) is only
/// ever touched inside `lock`, and nothing hands it out: callers get results, not the pipeline.
public final class PipelineHandle: @unchecked Sendable {
    private let lock = NSLock()
    private let pipeline: Pipeline

    public init(_ pipeline: Pipeline) { self.pipeline = pipeline }

    public func withPipeline<T>(_ body: (Pipeline) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(pipeline)
    }
}
