// A log handler that keeps the lines a test's service logged, so tests can assert on them.
import Logging
import Synchronization

final class CapturedLog: LogHandler, @unchecked Sendable {
    // The LogHandler protocol needs mutable properties; only `lines` is shared, under a lock.
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    private let store = Mutex<[String]>([])

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.withLock { $0.append("\(event.level): \(event.message)") }
    }

    var lines: [String] { store.withLock { $0 } }
}
