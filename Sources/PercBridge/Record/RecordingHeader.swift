// The first line of a PercBridge recording: format name, version, surface and clock settings.
import MTKTangibles

/// Header line of a recording (docs/recording-format.md). Readers reject other formats and
/// newer major versions with a clear message.
public struct RecordingHeader: Codable, Hashable, Sendable {
    public static let formatName = "percbridge-recording"
    public static let currentVersion = 1

    public var format: String = RecordingHeader.formatName
    public var version: Int = RecordingHeader.currentVersion
    /// Which program wrote it (e.g. `percbridge 0.1.0 record`).
    public var writer: String
    /// Surface size in mm, if known.
    public var surface: Vec2?
    /// `fixed` or `follow-presented`, and the rate.
    public var clock: String
    public var rateHz: Double
    /// Where inputs came from (`evdev:/dev/input/event5`, `tuio:0.0.0.0:3333`, …).
    public var sources: [String]

    public init(writer: String, surface: Vec2?, clock: String = "fixed", rateHz: Double = 120, sources: [String] = []) {
        self.writer = writer; self.surface = surface; self.clock = clock; self.rateHz = rateHz; self.sources = sources
    }
}
