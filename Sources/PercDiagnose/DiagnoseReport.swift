// What `percbridge diagnose` reports: per-tangible figures of link, field sensor, light sensor, recognition.
import MTKTangibles

/// The whole diagnosis of one recording or live session (encoded as `--json` and served at
/// `/diagnostics`). Times in the figures are milliseconds or seconds as their names say.
public struct DiagnoseReport: Codable, Hashable, Sendable {
    static let formatVersion = 1
    public var version = DiagnoseReport.formatVersion
    /// Where the data came from (`recording FILE` or `live http://HOST:PORT`).
    public var source: String
    /// Seconds of data analysed (first to last frame).
    public var duration: Double
    public var frames: Int
    /// Recording lines that could not be read (skipped), if from a recording.
    public var badLines: Int
    public var tangibles: [TangibleDiagnosis]
    /// What the reader should know about the data (settings used for a replay, missing records).
    public var notes: [String] = []
    /// The display's refresh, from the presented reports (nil: none came).
    public var display: DisplayFigures?

    public init(source: String, duration: Double, frames: Int, badLines: Int, tangibles: [TangibleDiagnosis], notes: [String] = []) {
        self.source = source; self.duration = duration; self.frames = frames; self.badLines = badLines
        self.tangibles = tangibles; self.notes = notes
    }

    private enum CodingKeys: String, CodingKey { case version, source, duration, frames, badLines, tangibles, notes, display }

    /// Reports of services that predate `notes` still decode.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(Int.self, forKey: .version)
        source = try c.decode(String.self, forKey: .source)
        duration = try c.decode(Double.self, forKey: .duration)
        frames = try c.decode(Int.self, forKey: .frames)
        badLines = try c.decode(Int.self, forKey: .badLines)
        tangibles = try c.decode([TangibleDiagnosis].self, forKey: .tangibles)
        notes = try c.decodeIfPresent([String].self, forKey: .notes) ?? []
        display = try c.decodeIfPresent(DisplayFigures.self, forKey: .display)
    }
}

/// Every figure of issue 7 for one tangible.
public struct TangibleDiagnosis: Codable, Hashable, Sendable {
    public var id: TangibleID
    public var name: String
    public var kind: TangibleDefinition.Kind
    public var profile: PercProfile?
    public var link: LinkFigures
    public var field: FieldFigures
    public var light: LightFigures
    public var recognition: RecognitionFigures
}

/// A PERC's Bluetooth link: connects, drops, notifications lost, latency, clock drift, battery.
public struct LinkFigures: Codable, Hashable, Sendable {
    public var connects = 0
    public var disconnects = 0
    /// Connects after a disconnect.
    public var reconnects = 0
    /// Seconds the link was up.
    var connectedSeconds = 0.0
    /// Sensor notifications received (field, light, battery, heartbeat).
    public var notifications = 0
    public var notificationsPerSecond: Double?
    /// Missing sequence numbers (PERC GATT v1 only; nil when the profile has none).
    public var lost: Int?
    /// lost / (received + lost).
    var lossRate: Double?
    /// Repeated or out-of-order sequence numbers (ignored for loss).
    public var outOfOrder = 0
    /// Notification delay above the fastest one seen, from device time (PERC GATT v1).
    var latencyAboveFastest: LatencyFigures?
    /// Device clock drift against the service clock, parts per million.
    var clockDriftPPM: Double?
    /// Why latency/loss are absent (e.g. the MTK serial profile has no device time).
    public var note: String?
    /// What BlueZ reported as RSSI (from advertisements while discovering), or why nothing.
    public var rssi = RSSIFigures()
    var batteryLast: Int?
    var batteryMin: Int?
}

/// The field sensor: on/off counts, onsets against the marker touches, the suggested window.
public struct FieldFigures: Codable, Hashable, Sendable {
    var onCount = 0
    var offCount = 0
    /// Marker trace begin minus field-on notification arrival, per marker trace (ms).
    var onsetOffsetsMs = SignedDistribution()
    /// Share of marker traces that began inside ± the configured window.
    var insideConfiguredWindow: Double?
    public var configuredWindowMs: Double
    /// The window these onsets suggest for this surface (ms), nil with too little evidence.
    var suggestedWindowMs: Double?
}

/// The light sensor: light checks, answers, misses and flips.
public struct LightFigures: Codable, Hashable, Sendable {
    /// Light-check outcomes (all kinds) and the stationary ones among them.
    public var checks = 0
    public var confirmed = 0
    public var rejected = 0
    public var inconclusive = 0
    var stationaryChecks = 0
    /// Colour changes shown under the sensor's known position (pose confirmed or kept).
    var exposures = 0
    public var answered = 0
    /// Exposures held at least `missHoldMs` without an answer within `answerWaitMs`.
    public var misses = 0
    /// Exposures withdrawn sooner than the hold time without an answer (not counted either way).
    var cutShort = 0
    /// Unanswered exposures during which sequence numbers show lost notifications: the
    /// answer may have been sent and lost, so they are not counted as misses.
    var lostOnLink = 0
    public var missRate: Double?
    /// Presentation → light notification arrival, HdrHistogram-derived.
    var responseLatency: LatencyFigures?
    /// Light changes no check, placement or scene change explains.
    public var spontaneousFlips = 0
    /// Hours in which a spontaneous flip would have been noticed (link up, no activity).
    var quietHours = 0.0
    var flipsPerHour: Double?
    /// When each spontaneous flip happened (seconds since the start), for the time line.
    var flipTimes: [Double] = []
    var missTimes: [Double] = []
}

/// Recognition: how often and how fast a PERC was recognised, guesses and how they ended.
public struct RecognitionFigures: Codable, Hashable, Sendable {
    public var recognitions = 0
    /// Field-on → tracked (ms).
    var timeToRecogniseMs = SignedDistribution()
    var guesses = 0
    var guessesStood = 0
    var guessesOverturned = 0
    /// Traces dropped by the deformation check (incl. ghost touches).
    var deformationDrops = 0
    var ghostTouchDrops = 0
    var restingSeconds = 0.0
    var stationaryCheckFailures = 0
    /// Three failed stationary checks in a row sent it back to searching.
    var restingLost = 0
    /// State intervals for the time line: state name and [from, to] seconds since the start.
    public var timeline: [StateSpan] = []
}

/// A span of time a tangible spent in one state (for the time lines).
public struct StateSpan: Codable, Hashable, Sendable {
    public var state: String
    public var from: Double
    public var to: Double
}
