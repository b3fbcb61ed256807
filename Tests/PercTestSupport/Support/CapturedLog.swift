// A log handler that keeps the lines a test's service logged, so tests can assert on them.
import Logging
import Synchronization

/// A value, as swift-log expects of a `LogHandler`: every `Logger` copy (`Logger.with(
/// metadataKey:)` on an event-loop thread, say) changes its own metadata, and all copies
/// append to one shared, locked store. (As a class, two threads setting metadata at once
/// raced on one dictionary: a test process crashed in `HostileWebTests` with it.)
public struct CapturedLog: LogHandler, Sendable {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private final class Store: Sendable { let lines = Mutex<[String]>([]) }
    private let store = Store()

    public init() {}

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        store.lines.withLock { $0.append("\(event.level): \(event.message)") }
    }

    public var lines: [String] { store.lines.withLock { $0 } }
}
