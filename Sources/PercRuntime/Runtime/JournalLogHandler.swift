// A swift-log handler that writes structured entries to journald (under systemd).
import Logging
import PercSystem

/// Each log call becomes one journal entry: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, the
/// logger label, and every metadata key as its own field (so `journalctl TANGIBLE=red`
/// or `STATE=resting` filter by tangible, state, reason).
struct JournalLogHandler: LogHandler {
    var label: String
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    init(label: String) { self.label = label }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields: [(String, String)] = [
            ("MESSAGE", "\(event.message)"),
            ("PRIORITY", String(Self.priority(event.level))),
            ("SYSLOG_IDENTIFIER", "percbridge"),
            ("PERCBRIDGE_COMPONENT", label),
            ("CODE_FILE", event.file), ("CODE_LINE", String(event.line)), ("CODE_FUNC", event.function),
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        for (k, v) in merged.sorted(by: { $0.key < $1.key }) { fields.append((k, "\(v)")) }
        SDJournal.send(fields)
    }

    /// syslog priorities (0 emerg … 7 debug).
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
