// The thresholds the analysis uses to tell answers, misses and spontaneous flips apart (docs/diagnose.md).
import MTKTangibles

/// How the analysis classifies what it sees. Defaults follow HARDWARE-MODEL.md: a sensor
/// answers 1–4 display frames (≤ 67 ms at 60 Hz) plus one connection interval after a change.
public struct DiagnoseSettings: Codable, Hashable, Sendable {
    /// A light notification up to this long after a colour change under the sensor answers it.
    var answerWait: Seconds = 0.5
    /// An unanswered change counts as a miss only if it stayed on screen at least this long:
    /// 4 display frames at 60 Hz (67 ms, the sensor's slowest response) and a margin. The
    /// link's wait does not matter here (`answerWait` covers it): a sensor that saw the
    /// colour this long has answered it or missed it. A PERC with its own clock has silent
    /// rounds shorter than 100 ms (LightCheck `sensorClock`), which a longer hold would
    /// leave uncounted.
    var missHold: Seconds = 0.08
    /// A light change this soon after check activity, a placement, a lift or a link-up is
    /// explained by it; only changes outside these windows count as spontaneous.
    public var settle: Seconds = 0.5
    /// Marker traces that began this long before/after field-on belong to the placement.
    var onsetBefore: Seconds = 1.0
    var onsetAfter: Seconds = 2.0
    /// Fewest marker onsets before a time window is suggested.
    var minOnsetsForSuggestion = 12
    /// A suggested window this close to the current one (ms) keeps the current one: the 99%
    /// point of a few dozen onsets, assigned under one window, moves that much under another.
    var windowDeadbandMs = 20
    /// Fewest exposures before a stationary-failure limit is suggested.
    var minExposuresForSuggestion = 30
    /// Fewest notifications with a device time before a connection interval is suggested, and
    /// how close (ms) to the configured one a suggestion keeps it.
    var minNotificationsForSuggestion = 200
    var intervalDeadbandMs = 2
    /// The engine's configured window (ms), to say how many onsets fall inside it.
    var configuredWindow: Seconds = 0.2
    /// The frame period (s): the engine compares frame times, so a suggested window adds one.
    public var framePeriod: Seconds = 1.0 / 120
    /// Stationary checks per hour while resting, to size the failure limit.
    public var stationaryInterval: Seconds = 2.0
    /// The display refresh rate the light checks are told (`light_checks.display_refresh_hz`):
    /// the live service says when the presented reports show another one.
    public var displayRefreshHz = 60.0

    public init() {}
}
