// sd_journal_sendv: structured log entries (MESSAGE, PRIORITY and our own fields) to journald.
import CDBus
#if canImport(Glibc)
import Glibc
#endif

/// Sends one journal entry made of `FIELD=value` pairs. Field names must be upper case
/// letters, digits and underscores (journald drops others), so they are sanitised here.
public enum SDJournal {
    /// Whether stderr is connected to the journal (systemd sets JOURNAL_STREAM then).
    public static var isConnected: Bool { getenv("JOURNAL_STREAM") != nil }

    @discardableResult
    public static func send(_ fields: [(String, String)]) -> Bool {
        let entries: [[UInt8]] = fields.map { Array("\(sanitise($0.0))=\($0.1)".utf8) }
        var storage = entries
        let count = storage.count
        return storage.withUnsafeMutableBufferPointer { buffers -> Bool in
            var iov = [iovec](repeating: iovec(), count: count)
            func fill(_ i: Int) -> Bool {
                if i == count { return sd_journal_sendv(&iov, Int32(count)) >= 0 }
                return buffers[i].withUnsafeMutableBytes { raw in
                    iov[i] = iovec(iov_base: raw.baseAddress, iov_len: raw.count)
                    return fill(i + 1)
                }
            }
            return fill(0)
        }
    }

    static func sanitise(_ name: String) -> String {
        var out = String(name.uppercased().map { ($0.isLetter && $0.isASCII) || $0.isNumber ? $0 : "_" })
        while out.hasPrefix("_") { out.removeFirst() }
        return out.isEmpty ? "FIELD" : String(out.prefix(64))
    }
}
