// Chooses where logs go: journald (with fields) under systemd, stderr otherwise.
import Foundation
import Logging
import PercSystem

/// Chooses where logs go: the journal (with fields) under systemd, stderr otherwise.
public enum LogSetup {
    /// Bootstraps swift-log once per process; `level` from --log-level or PERCBRIDGE_LOG_LEVEL.
    public static func bootstrap(level: Logger.Level?) {
        let env = ProcessInfo.processInfo.environment["PERCBRIDGE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
        let chosen = level ?? env ?? .info
        let journal = SDJournal.isConnected
        LoggingSystem.bootstrap { label in
            if journal {
                var h = JournalLogHandler(label: label)
                h.logLevel = chosen
                return h
            }
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = chosen
            return h
        }
    }
}
