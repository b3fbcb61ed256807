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
    public var engine: EngineConfig? {
        get { engineBox.value }
        set { engineBox = SharedConstant(newValue) }
    }
    public var lightChecks: LightCheckConfig? {
        get { lightChecksBox.value }
        set { lightChecksBox = SharedConstant(newValue) }
    }
    /// The settings behind one reference each, so a header (and a `RecordingFile`) is a few
    /// words, not the settings' hundreds of bytes: Swift 6.3.1 debug builds crashed copying a
    /// `RecordingFile` inside async functions each time the settings grew (`diagnose --from`,
    /// `DemoCalibrationRecordTests`: "Bad pointer dereference" in an outlined copy).
    private var engineBox: SharedConstant<EngineConfig?>
    private var lightChecksBox: SharedConstant<LightCheckConfig?>

    public init(writer: String, surface: Vec2?, clock: String = "fixed", rateHz: Double = 120, sources: [String] = [],
                engine: EngineConfig? = nil, lightChecks: LightCheckConfig? = nil) {
        self.writer = writer; self.surface = surface; self.clock = clock; self.rateHz = rateHz; self.sources = sources
        engineBox = SharedConstant(engine); lightChecksBox = SharedConstant(lightChecks)
    }

    private enum CodingKeys: String, CodingKey {
        case format, version, writer, surface, clock, rateHz, sources, engine, lightChecks
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        format = try c.decode(String.self, forKey: .format)
        version = try c.decode(Int.self, forKey: .version)
        writer = try c.decode(String.self, forKey: .writer)
        surface = try c.decodeIfPresent(Vec2.self, forKey: .surface)
        clock = try c.decode(String.self, forKey: .clock)
        rateHz = try c.decode(Double.self, forKey: .rateHz)
        sources = try c.decode([String].self, forKey: .sources)
        engineBox = SharedConstant(try c.decodeIfPresent(EngineConfig.self, forKey: .engine))
        lightChecksBox = SharedConstant(try c.decodeIfPresent(LightCheckConfig.self, forKey: .lightChecks))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(format, forKey: .format)
        try c.encode(version, forKey: .version)
        try c.encode(writer, forKey: .writer)
        try c.encodeIfPresent(surface, forKey: .surface)
        try c.encode(clock, forKey: .clock)
        try c.encode(rateHz, forKey: .rateHz)
        try c.encode(sources, forKey: .sources)
        try c.encodeIfPresent(engine, forKey: .engine)
        try c.encodeIfPresent(lightChecks, forKey: .lightChecks)
    }
}
