// Parses evemu-record text (header N:/I:/P:/B:/A: lines, then E: events); bad lines are counted and skipped.
import MTKTangibles

/// evemu-record text. New files carry the device header; old `.events` files have only `E:`
/// lines and need the device's `.desc` (the same header format). Old `A:` lines lack the
/// resolution column. Event times are relative (new) or epoch (old) seconds.
enum EvemuParser {
    public static func parse(_ text: String, sourceName: String, description: String? = nil) throws(RecordingError) -> EvdevRecording {
        var bad = BadInputLog()
        var device = DeviceDescription(name: "")
        var haveHeader = false
        var entries: [EvdevRecording.Entry] = []
        if let description {
            haveHeader = parseHeader(description, sourceName: sourceName + " (.desc)", into: &device, bad: &bad) || haveHeader
        }
        var lineNo = 0
        var headerInEvents = DeviceDescription(name: "")
        var cursor = HeaderCursor()
        var eventsHaveHeader = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNo += 1
            guard let first = line.first, first != "#" else { continue }
            if line.hasPrefix("E:") {
                if let e = parseEvent(line.dropFirst(2)) {
                    entries.append(.init(event: e, line: lineNo))
                } else {
                    bad.record("malformed evemu event line", at: "\(sourceName):\(lineNo)", String(line.prefix(80)))
                }
            } else {
                eventsHaveHeader = headerLine(line, into: &headerInEvents, cursor: &cursor, location: "\(sourceName):\(lineNo)", bad: &bad) || eventsHaveHeader
            }
        }
        if eventsHaveHeader {
            device = headerInEvents
            haveHeader = true
        }
        guard haveHeader, !device.axes.isEmpty else {
            throw RecordingError("\(sourceName) has no device header (N:/A: lines): old evemu .events files need their .desc file — pass it with --desc, or put NAME.desc beside the recording")
        }
        return EvdevRecording(format: .evemu, device: device, entries: entries, bad: bad, sourceName: sourceName)
    }

    /// Parses header lines; returns whether any header line was found.
    static func parseHeader(_ text: String, sourceName: String, into device: inout DeviceDescription, bad: inout BadInputLog) -> Bool {
        var found = false, n = 0
        var cursor = HeaderCursor()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            n += 1
            guard let first = line.first, first != "#", !line.hasPrefix("E:") else { continue }
            found = headerLine(line, into: &device, cursor: &cursor, location: "\(sourceName):\(n)", bad: &bad) || found
        }
        return found
    }

    /// P: and B: bitmasks continue over several lines (8 bytes each): how many were read so far.
    struct HeaderCursor {
        var propertyLines = 0
        var bitLines: [UInt16: Int] = [:]
    }

    private static func headerLine(_ line: Substring, into d: inout DeviceDescription, cursor: inout HeaderCursor, location: String, bad: inout BadInputLog) -> Bool {
        guard line.count >= 2, line.dropFirst().first == ":" else {
            if !line.allSatisfy(\.isWhitespace) { bad.record("unknown evemu line", at: location, String(line.prefix(80))) }
            return false
        }
        let body = line.dropFirst(2)
        let fields = body.split(whereSeparator: { $0 == " " || $0 == "\t" })
        switch line.first! {
        case "N":
            d.name = body.trimmingPrefix(while: { $0 == " " }).description
            return true
        case "I":
            let ids = fields.compactMap { UInt16($0, radix: 16) }
            guard ids.count == 4 else { bad.record("malformed evemu I: line", at: location); return true }
            (d.bus, d.vendor, d.product, d.version) = (ids[0], ids[1], ids[2], ids[3])
            return true
        case "P":
            // Properties continue over several P: lines; each adds 8 bytes of bits.
            let bytes = fields.compactMap { UInt8($0, radix: 16) }
            let base = cursor.propertyLines * 64
            for (i, b) in bytes.enumerated() { for bit in 0..<8 where b & (1 << bit) != 0 { d.properties.insert(base + i * 8 + bit) } }
            cursor.propertyLines += 1
            return true
        case "B":
            guard let type = fields.first.flatMap({ UInt16($0, radix: 16) }) else { bad.record("malformed evemu B: line", at: location); return true }
            let bytes = fields.dropFirst().compactMap { UInt8($0, radix: 16) }
            let base = (cursor.bitLines[type] ?? 0) * 64
            var set = d.codes[type] ?? []
            for (i, b) in bytes.enumerated() { for bit in 0..<8 where b & (1 << bit) != 0 { set.insert(UInt16(base + i * 8 + bit)) } }
            d.codes[type] = set
            cursor.bitLines[type, default: 0] += 1
            return true
        case "A":
            guard fields.count >= 5, let code = UInt16(fields[0], radix: 16), code <= EvdevCode.ABS_MAX else {
                bad.record("malformed evemu A: line", at: location, String(line.prefix(80))); return true
            }
            let nums = fields.dropFirst().map { Int32($0) }
            guard !nums.contains(nil), nums[0]! <= nums[1]! else { bad.record("malformed evemu A: line", at: location, String(line.prefix(80))); return true }
            d.axes[code] = AbsInfo(minimum: nums[0]!, maximum: nums[1]!, fuzz: nums[2]!, flat: nums[3]!,
                                   resolution: nums.count > 4 ? nums[4]! : 0)
            return true
        case "L", "S":
            return true
        default:
            bad.record("unknown evemu line", at: location, String(line.prefix(80)))
            return false
        }
    }

    /// `sec.usec type code value` with type/code in hex and value in decimal.
    static func parseEvent(_ body: Substring) -> InputEvent? {
        // evemu appends a `# EV_ABS / ABS_MT_SLOT 0` comment to each event in newer files.
        let data = body.firstIndex(of: "#").map { body[..<$0] } ?? body
        let f = data.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard f.count == 4, let time = parseTime(f[0]),
              let type = UInt16(f[1], radix: 16), let code = UInt16(f[2], radix: 16), let value = Int32(f[3]) else { return nil }
        return InputEvent(time: time, type: type, code: code, value: value)
    }

    /// Seconds from `sec.frac`, reading the fraction as decimal digits (never as octal).
    static func parseTime(_ s: Substring) -> Seconds? {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let sec = Int64(parts[0]), sec >= 0, !parts[1].isEmpty, parts[1].count <= 9,
              parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let frac = Int64(parts[1]) else { return nil }
        var scale = 1.0
        for _ in 0..<parts[1].count { scale *= 10 }
        return Double(sec) + Double(frac) / scale
    }
}
