// Splits a TCP byte stream into whole JSON documents (objects or arrays back to back, any
// whitespace or newlines between), so forwarders may or may not send newline-delimited JSON.

/// Incremental framer: append bytes, take complete documents. Strings and escapes are
/// respected; a document longer than `maxBytes`, or bytes outside any document, are errors.
struct JSONStreamFramer: Sendable {
    public enum Problem: Hashable, Sendable { case tooLong(Int), garbage(UInt8) }

    let maxBytes: Int
    private var buffer: [UInt8] = []
    private var depth = 0, inString = false, escaped = false

    public init(maxBytes: Int = 1 << 20) { self.maxBytes = maxBytes }

    /// Appends `bytes`; returns the complete documents and any problems (the offending bytes skipped).
    public mutating func append(_ bytes: some Sequence<UInt8>) -> (documents: [[UInt8]], problems: [Problem]) {
        var docs: [[UInt8]] = [], problems: [Problem] = []
        for b in bytes {
            if depth == 0 {
                switch b {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    buffer = [b]; depth = 1; inString = false; escaped = false
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"), UInt8(ascii: ","): continue
                default: problems.append(.garbage(b))
                }
                continue
            }
            buffer.append(b)
            if inString {
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
            } else {
                switch b {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { docs.append(buffer); buffer.removeAll(keepingCapacity: true) }
                default: break
                }
            }
            if buffer.count > maxBytes {
                problems.append(.tooLong(buffer.count))
                buffer.removeAll(); depth = 0; inString = false; escaped = false
            }
        }
        return (docs, problems)
    }
}
