// Reads a recording back: the header, then entries; bad lines are counted with their line number.
import Foundation
import MTKTangibles
import PercInput

/// A parsed recording. Bad lines (truncated, unknown kind) are skipped and counted in `bad`.
public struct RecordingFile: Sendable {
    public var header: RecordingHeader
    public var entries: [RecordEntry]
    public var bad: BadInputLog

    public static func read(path: String) throws(RecordingError) -> RecordingFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RecordingError("cannot read \(path): check the path and its permissions")
        }
        return try parse(data, sourceName: URL(fileURLWithPath: path).lastPathComponent)
    }

    public static func parse(_ data: Data, sourceName: String) throws(RecordingError) -> RecordingFile {
        let decoder = JSONDecoder()
        var bad = BadInputLog()
        var header: RecordingHeader?
        var entries: [RecordEntry] = []
        var lineNo = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNo += 1
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) { continue }
            if header == nil {
                guard let h = try? decoder.decode(RecordingHeader.self, from: Data(line)), h.format == RecordingHeader.formatName else {
                    throw RecordingError("\(sourceName):\(lineNo): not a PercBridge recording (the first line must be its header with \"format\": \"\(RecordingHeader.formatName)\")")
                }
                guard h.version <= RecordingHeader.currentVersion else {
                    throw RecordingError("\(sourceName): recording format version \(h.version) is newer than this percbridge reads (\(RecordingHeader.currentVersion)); update percbridge")
                }
                header = h
                continue
            }
            do { entries.append(try decoder.decode(RecordEntry.self, from: Data(line))) } catch {
                bad.record("bad recording line", at: "\(sourceName):\(lineNo)", "\(String(decoding: line.prefix(60), as: UTF8.self))")
            }
        }
        guard let header else { throw RecordingError("\(sourceName) is empty: no header line") }
        return RecordingFile(header: header, entries: entries, bad: bad)
    }

    /// The frames as the live frame clock cut them: inputs between two `frame` entries go to
    /// the second, in recorded order. Inputs after the last tick are not a frame (dropped).
    public func frames() -> [Frame] {
        var assembler = FrameAssembler()
        var out: [Frame] = []
        for e in entries {
            switch e {
            case .contact(let c): assembler.add(c)
            case .sensor(let s): assembler.add(s)
            case .presented(let p): assembler.add(p)
            case .frame(let n, let t, let drawing):
                assembler.drawing = drawing
                var f = assembler.cut(at: t)
                f.number = n
                out.append(f)
            case .definitions, .result, .calibration, .rssi: break
            }
        }
        return out
    }

    /// The latest definitions in effect before each frame (by frame number), for replay.
    var definitionsByFrame: [(beforeFrame: UInt64, definitions: [TangibleDefinition])] {
        var out: [(UInt64, [TangibleDefinition])] = []
        var next: UInt64 = 1
        for e in entries {
            switch e {
            case .frame(let n, _, _): next = n + 1
            case .definitions(let d): out.append((next, d))
            default: break
            }
        }
        return out
    }

    /// Calibrations started or cancelled through the control API, in recorded order.
    var schedulerCommands: [SchedulerCommand] {
        entries.compactMap { if case .calibration(let c) = $0 { c } else { nil } }
    }

    /// RSSI values BlueZ reported for registered PERCs, in recorded order.
    public var rssiSamples: [RSSISample] {
        entries.compactMap { if case .rssi(let r) = $0 { r } else { nil } }
    }

    var resultDigests: [UInt64: String] {
        var d: [UInt64: String] = [:]
        for case .result(let f, let digest) in entries { d[f] = digest }
        return d
    }
}
