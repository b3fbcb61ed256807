// A recorded evdev stream (from evemu or libinput record): the device and its events with line numbers.

/// A device description plus its events, each with the line it came from.
public struct EvdevRecording: Sendable {
    public struct Entry: Hashable, Sendable {
        public var event: InputEvent
        public var line: Int
    }

    public enum Format: String, Sendable, Codable { case evemu, libinputRecord = "libinput-record" }

    public var format: Format
    public var device: DeviceDescription
    public var entries: [Entry]
    /// Malformed lines that were skipped while parsing.
    public var bad: BadInputLog
    /// Where the events came from (for error locations).
    public var sourceName: String

    public init(format: Format, device: DeviceDescription, entries: [Entry], bad: BadInputLog, sourceName: String) {
        self.format = format; self.device = device; self.entries = entries; self.bad = bad; self.sourceName = sourceName
    }
}

/// Why a recording could not be read at all (as opposed to single bad lines, which are skipped).
public struct RecordingError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ d: String) { description = d }
}
