// The first line of a PercBridge recording: format name, version, surface, clock, and the core's settings.
import LightCheck
import MTKTangibles

/// Header line of a recording (docs/recording-format.md). Readers reject other formats and
/// newer major versions with a clear message.
public struct RecordingHeader: Codable, Hashable, Sendable {
    static let formatName = "percbridge-recording"
    static let currentVersion = 1

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
    /// The engine and light-check settings the writer ran with (`serve`, `demo`), so replay
    /// and diagnose step the same core. Absent in `record` files (no core ran) and in
    /// recordings made before these keys existed: readers then use the defaults and say so.
    public var engine: EngineConfig?
    public var lightChecks: LightCheckConfig?

    public init(writer: String, surface: Vec2?, clock: String = "fixed", rateHz: Double = 120, sources: [String] = [],
                engine: EngineConfig? = nil, lightChecks: LightCheckConfig? = nil) {
        self.writer = writer; self.surface = surface; self.clock = clock; self.rateHz = rateHz; self.sources = sources
        self.engine = engine; self.lightChecks = lightChecks
    }
}
