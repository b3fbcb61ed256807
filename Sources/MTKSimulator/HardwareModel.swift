// The settings of the simulated hardware, with the defaults of shared/HARDWARE-MODEL.md.
import MTKTangibles

/// How the simulated touch table, PERCs and BLE links misbehave. Every figure of
/// HARDWARE-MODEL.md is one setting here with that default (docs/simulator.md gives the
/// source of each). Times are seconds, distances millimetres, angles degrees, rates per
/// second. Decoding JSON that omits keys keeps the defaults for them.
public struct HardwareModel: Hashable, Sendable, Codable {
    // MARK: Touch controller
    /// Touch controller sample rate (Hz); one contact update per contact per sample.
    public var touchSampleRate: Double = 120
    /// From a sample to its arrival at the service.
    public var touchReportLatency: Seconds = 0.008
    /// Gaussian jitter of marker touch positions, σ per axis (mm).
    public var markerJitter: Double = 0.7
    /// Gaussian jitter of finger touch positions, σ per axis (mm).
    public var fingerJitter: Double = 0.5

    // MARK: Placement
    /// From setting a tangible down to its field sensor firing (the event the notification reports).
    public var fieldSensorDelay: Seconds = 0.150
    /// Share of marker touches whose arrival lies within ±`markerOnsetWindow` of the field-on notification.
    public var markerOnsetInWindowProbability: Double = 0.99
    public var markerOnsetWindow: Seconds = 0.150
    /// The other marker touches arrive late, uniformly up to this long after the notification.
    public var markerOnsetLateMax: Seconds = 0.400
    /// Untouched placements that make one marker touch only.
    public var singleTouchProbability: Double = 0.032
    /// Pose angles (degrees) at which the scanlines align with the markers: one marker makes no touch.
    public var scanlineAngles: [Double] = [0, 90, 180, 270]
    public var scanlineTolerance: Double = 3
    /// Chance of the two-touch case when placed within the tolerance of a scanline angle.
    public var scanlineTwoTouchProbability: Double = 1

    // MARK: Touch-controller misbehaviour
    /// A stationary, untouched tangible's touches are filtered after uniform [min, max].
    public var filterDelayMin: Seconds = 5
    public var filterDelayMax: Seconds = 30
    /// While the tangible moves, each marker touch drops out at this rate (per second)...
    public var flickerRate: Double = 0.01
    /// ...for a uniform number of touch samples in [min, max], then comes back as a new contact.
    public var flickerFramesMin: Double = 1
    public var flickerFramesMax: Double = 10
    /// Share of marker touches that freeze in place when their tangible starts to move.
    public var ghostTouchProbability: Double = 0.002
    /// How long a ghost touch stays, uniform [min, max].
    public var ghostDurationMin: Seconds = 2
    public var ghostDurationMax: Seconds = 5
    /// A finger resting on a tangible pulls each marker touch this far towards the finger (mm).
    public var touchedMarkerShift: Double = 1.5

    // MARK: BLE link
    /// A notification waits uniformly up to one connection interval...
    public var bleConnectionInterval: Seconds = 0.030
    /// ...plus a uniform host-stack delay in [min, max].
    public var bleHostStackMin: Seconds = 0.001
    public var bleHostStackMax: Seconds = 0.003
    /// Share of sensor notifications lost on the link (sequence numbers show the gap).
    public var notificationLossProbability: Double = 0
    /// After the PERC goes out of range, the host reports the link lost this much later.
    public var linkSupervisionTimeout: Seconds = 2
    /// PERC GATT v1 heartbeat: a notification after this long without one (0: none).
    public var heartbeatInterval: Seconds = 1
    /// Battery level notifications (PERC GATT v1) this often (0: only at link up).
    public var batteryInterval: Seconds = 60
    /// Battery drain in percent per hour.
    public var batteryDrainPerHour: Double = 2

    // MARK: Light sensor
    /// Display refresh rate (Hz): the sensor responds a whole number of display frames after a change.
    public var displayFrameRate: Double = 60
    public var lightResponseFramesMin: Double = 1
    public var lightResponseFramesMax: Double = 4
    /// Share of colour changes under the sensor that it does not report.
    public var lightMissProbability: Double = 0.03
    /// Spontaneous changes of the reported light state (ambient light, scene), per second.
    public var lightSpontaneousFlipRate: Double = 0.005

    public init() {}

    /// Field-by-field decoding that falls back to the default for a missing key.
    public init(from decoder: any Decoder) throws {
        let defaults = HardwareModel()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func d(_ key: CodingKeys, _ fallback: Double) throws -> Double {
            try c.decodeIfPresent(Double.self, forKey: key) ?? fallback
        }
        touchSampleRate = try d(.touchSampleRate, defaults.touchSampleRate)
        touchReportLatency = try d(.touchReportLatency, defaults.touchReportLatency)
        markerJitter = try d(.markerJitter, defaults.markerJitter)
        fingerJitter = try d(.fingerJitter, defaults.fingerJitter)
        fieldSensorDelay = try d(.fieldSensorDelay, defaults.fieldSensorDelay)
        markerOnsetInWindowProbability = try d(.markerOnsetInWindowProbability, defaults.markerOnsetInWindowProbability)
        markerOnsetWindow = try d(.markerOnsetWindow, defaults.markerOnsetWindow)
        markerOnsetLateMax = try d(.markerOnsetLateMax, defaults.markerOnsetLateMax)
        singleTouchProbability = try d(.singleTouchProbability, defaults.singleTouchProbability)
        scanlineAngles = try c.decodeIfPresent([Double].self, forKey: .scanlineAngles) ?? defaults.scanlineAngles
        scanlineTolerance = try d(.scanlineTolerance, defaults.scanlineTolerance)
        scanlineTwoTouchProbability = try d(.scanlineTwoTouchProbability, defaults.scanlineTwoTouchProbability)
        filterDelayMin = try d(.filterDelayMin, defaults.filterDelayMin)
        filterDelayMax = try d(.filterDelayMax, defaults.filterDelayMax)
        flickerRate = try d(.flickerRate, defaults.flickerRate)
        flickerFramesMin = try d(.flickerFramesMin, defaults.flickerFramesMin)
        flickerFramesMax = try d(.flickerFramesMax, defaults.flickerFramesMax)
        ghostTouchProbability = try d(.ghostTouchProbability, defaults.ghostTouchProbability)
        ghostDurationMin = try d(.ghostDurationMin, defaults.ghostDurationMin)
        ghostDurationMax = try d(.ghostDurationMax, defaults.ghostDurationMax)
        touchedMarkerShift = try d(.touchedMarkerShift, defaults.touchedMarkerShift)
        bleConnectionInterval = try d(.bleConnectionInterval, defaults.bleConnectionInterval)
        bleHostStackMin = try d(.bleHostStackMin, defaults.bleHostStackMin)
        bleHostStackMax = try d(.bleHostStackMax, defaults.bleHostStackMax)
        notificationLossProbability = try d(.notificationLossProbability, defaults.notificationLossProbability)
        linkSupervisionTimeout = try d(.linkSupervisionTimeout, defaults.linkSupervisionTimeout)
        heartbeatInterval = try d(.heartbeatInterval, defaults.heartbeatInterval)
        batteryInterval = try d(.batteryInterval, defaults.batteryInterval)
        batteryDrainPerHour = try d(.batteryDrainPerHour, defaults.batteryDrainPerHour)
        displayFrameRate = try d(.displayFrameRate, defaults.displayFrameRate)
        lightResponseFramesMin = try d(.lightResponseFramesMin, defaults.lightResponseFramesMin)
        lightResponseFramesMax = try d(.lightResponseFramesMax, defaults.lightResponseFramesMax)
        lightMissProbability = try d(.lightMissProbability, defaults.lightMissProbability)
        lightSpontaneousFlipRate = try d(.lightSpontaneousFlipRate, defaults.lightSpontaneousFlipRate)
        if let problem = validationProblem {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath + [problem.key], debugDescription: problem.message))
        }
    }

    /// The first setting that is out of range (NaN, negative, a probability above 1, min > max).
    public var validationProblem: (key: CodingKeys, message: String)? {
        let probabilities: [(CodingKeys, Double)] = [
            (.markerOnsetInWindowProbability, markerOnsetInWindowProbability), (.singleTouchProbability, singleTouchProbability),
            (.scanlineTwoTouchProbability, scanlineTwoTouchProbability), (.ghostTouchProbability, ghostTouchProbability),
            (.notificationLossProbability, notificationLossProbability), (.lightMissProbability, lightMissProbability),
        ]
        for (k, p) in probabilities where !(p >= 0 && p <= 1) {
            return (k, "\(k.stringValue) must be a probability in 0...1, got \(p)")
        }
        for child in Mirror(reflecting: self).children {
            let values = (child.value as? Double).map { [$0] } ?? []
            if let label = child.label, let key = CodingKeys(stringValue: label), let bad = values.first(where: { !($0.isFinite && $0 >= 0) }) {
                return (key, "\(label) must be a finite number ≥ 0, got \(bad)")
            }
        }
        if touchSampleRate <= 0 { return (.touchSampleRate, "touchSampleRate must be above 0") }
        if displayFrameRate <= 0 { return (.displayFrameRate, "displayFrameRate must be above 0") }
        let ranges: [(CodingKeys, Double, Double)] = [
            (.filterDelayMin, filterDelayMin, filterDelayMax), (.flickerFramesMin, flickerFramesMin, flickerFramesMax),
            (.ghostDurationMin, ghostDurationMin, ghostDurationMax), (.bleHostStackMin, bleHostStackMin, bleHostStackMax),
            (.lightResponseFramesMin, lightResponseFramesMin, lightResponseFramesMax),
        ]
        for (k, lo, hi) in ranges where lo > hi {
            return (k, "\(k.stringValue) (\(lo)) must not exceed its maximum (\(hi))")
        }
        return nil
    }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case touchSampleRate, touchReportLatency, markerJitter, fingerJitter, fieldSensorDelay
        case markerOnsetInWindowProbability, markerOnsetWindow, markerOnsetLateMax, singleTouchProbability
        case scanlineAngles, scanlineTolerance, scanlineTwoTouchProbability
        case filterDelayMin, filterDelayMax, flickerRate, flickerFramesMin, flickerFramesMax
        case ghostTouchProbability, ghostDurationMin, ghostDurationMax, touchedMarkerShift
        case bleConnectionInterval, bleHostStackMin, bleHostStackMax, notificationLossProbability
        case linkSupervisionTimeout, heartbeatInterval, batteryInterval, batteryDrainPerHour
        case displayFrameRate, lightResponseFramesMin, lightResponseFramesMax, lightMissProbability
        case lightSpontaneousFlipRate
    }
}
