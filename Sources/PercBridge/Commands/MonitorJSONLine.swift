// One JSON object per line for `percbridge monitor`, built by hand (no encoder per line).

/// One JSON object on one line, built key by key (keys are ours: plain ASCII).
struct MonitorJSONLine {
    private(set) var bytes: [UInt8]
    private var first = true

    init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    private mutating func key(_ k: StaticString) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "\""))
        k.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: "\":".utf8)
    }

    mutating func string(_ k: StaticString, _ value: String) {
        key(k)
        Self.appendQuoted(value, to: &bytes)
    }

    mutating func integer(_ k: StaticString, _ value: Int) {
        key(k)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// The shortest form that reads back as the same Double (`description`), as JSONEncoder
    /// writes it (also without a trailing `.0`). Not finite: null.
    mutating func number(_ k: StaticString, _ value: Double) {
        key(k)
        guard value.isFinite else { bytes.append(contentsOf: "null".utf8); return }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    /// Closes the object and appends it, with a newline, to `out`.
    consuming func end(into out: inout [UInt8]) {
        bytes.append(contentsOf: "}\n".utf8)
        out.append(contentsOf: bytes)
    }

    /// A JSON string: quotes, backslashes and control characters escaped; "/" and
    /// non-ASCII left as they are (as JSONEncoder with `.withoutEscapingSlashes` writes them).
    static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
