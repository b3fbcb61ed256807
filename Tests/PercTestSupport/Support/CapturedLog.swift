// A log handler that keeps the lines a test's service logged, so tests can assert on them.
import Logging
import Synchronization

public final class CapturedLog: LogHandler, @unchecked Sendable {
    // The LogHandler protocol needs mutable properties; only `lines` is shared, under a lock.
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let store = Mutex<[String]>([])

    public init() {}

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        store.withLock { $0.append("\(event.level): \(event.message)") }
    }

    public var lines: [String] { store.withLock { $0 } }
}
