// Opens a touch recording file of any supported format (evemu text or libinput record YAML).
import Foundation

/// Opens a touch recording of either format (evemu text, libinput record YAML).
public enum RecordingLoader {
    /// Loads `path`. For evemu files without a header, `descPath` is used, or else the first
    /// `.desc` file beside it that `descCandidates` names.
    public static func load(path: String, descPath: String? = nil) throws(RecordingError) -> EvdevRecording {
        let url = URL(fileURLWithPath: path)
        let text = try read(url)
        let name = url.lastPathComponent
        if LibinputRecordParser.looksLikeLibinputRecord(text) {
            return try LibinputRecordParser.parse(text, sourceName: name)
        }
        var desc: String?
        if let descPath {
            desc = try read(URL(fileURLWithPath: descPath))
        } else if !hasHeader(text) {
            let candidates = descCandidates(for: url)
            guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
                let names = candidates.map { "\"\($0.lastPathComponent)\"" }.joined(separator: " or ")
                throw RecordingError("\(name) has no device header (N:/A: lines): old evemu .events files need their .desc file; none of \(names) is beside it — pass it with --desc FILE")
            }
            desc = try read(found)
        }
        return try EvemuParser.parse(text, sourceName: name, description: desc)
    }

    static func hasHeader(_ text: String) -> Bool {
        text.split(separator: "\n").prefix(400).contains { $0.hasPrefix("N:") || $0.hasPrefix("A:") }
    }

    /// The `.desc` files that may describe `url`, most specific first: for
    /// `Device Name.gesture.events` that is `Device Name.gesture.desc`, then `Device Name.desc`
    /// (evemu-devices names recordings both ways, with and without a gesture part).
    static func descCandidates(for url: URL) -> [URL] {
        let folder = url.deletingLastPathComponent()
        var base = url.deletingPathExtension().lastPathComponent
        var out: [URL] = []
        while !base.isEmpty {
            out.append(folder.appendingPathComponent(base + ".desc"))
            guard let dot = base.lastIndex(of: ".") else { break }
            base = String(base[..<dot])
        }
        return out
    }

    static func read(_ url: URL) throws(RecordingError) -> String {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw RecordingError("cannot read \(url.path): check the path and its permissions")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
