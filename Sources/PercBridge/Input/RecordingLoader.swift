// Opens a touch recording file of any supported format (evemu text or libinput record YAML).
import Foundation

public enum RecordingLoader {
    /// Loads `path`. For evemu files without a header, `descPath` (or NAME.desc beside the
    /// file, NAME being the file name up to its first dot-separated gesture part) is used.
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
        } else if !hasHeader(text), let guess = descURL(for: url), FileManager.default.fileExists(atPath: guess.path) {
            desc = try read(guess)
        }
        return try EvemuParser.parse(text, sourceName: name, description: desc)
    }

    static func hasHeader(_ text: String) -> Bool {
        text.split(separator: "\n").prefix(400).contains { $0.hasPrefix("N:") || $0.hasPrefix("A:") }
    }

    /// `Device Name.gesture.events` → `Device Name.desc`.
    static func descURL(for url: URL) -> URL? {
        var base = url.deletingPathExtension().lastPathComponent
        guard let dot = base.lastIndex(of: ".") else { return nil }
        base = String(base[..<dot])
        return url.deletingLastPathComponent().appendingPathComponent(base + ".desc")
    }

    static func read(_ url: URL) throws(RecordingError) -> String {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw RecordingError("cannot read \(url.path): check the path and its permissions")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
