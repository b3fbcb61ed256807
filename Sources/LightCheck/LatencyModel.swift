// Per-tangible model of light-sensor response latency, learned from the responses seen.
import MTKTangibles

/// How long after a patch is presented a PERC's light sensor answers. Starts from a prior
/// (HARDWARE-MODEL.md: 1–4 frames, then one BLE connection interval) and moves towards the
/// latencies actually observed, so a quick PERC gets short deadlines and a slow one is not
/// cut off. Deadline = blend of the prior deadline and a high quantile of the recent samples
/// (times a slack, plus a margin), weighted by how many samples there are.
public struct LatencyModel: Hashable, Sendable, Codable {
    public struct Settings: Hashable, Sendable, Codable {
        /// Deadline before anything was learned: 4 frames at 60 Hz (67 ms) + a 50 ms
        /// connection interval + host stack + margin.
        public var priorDeadline: Seconds = 0.15
        /// Mean latency before anything was learned.
        public var priorMean: Seconds = 0.05
        /// How many samples the prior is worth.
        public var priorWeight: Double = 4
        /// The prior deadline and its weight for a sensor whose notifications carry its own
        /// clock (`LightCheckConfig.sensorClock`, PERC GATT v1): 4 frames at 60 Hz + a 30 ms
        /// connection interval + host stack + margin, learned from sooner. An answer later
        /// than a deadline cut too short is told apart by the sensor's clock (it voids a
        /// round instead of being read as the next round's answer) and teaches the deadline.
        public var clockPriorDeadline: Seconds = 0.11
        public var clockPriorWeight: Double = 2
        /// Samples kept (the most recent).
        public var window: Int = 40
        /// Quantile of the kept samples the learned deadline starts from (1: the largest).
        public var quantile: Double = 1
        /// Learned deadline = quantile × slack + margin.
        public var slack: Double = 1.1
        public var margin: Seconds = 0.005
        public var minDeadline: Seconds = 0.03
        public var maxDeadline: Seconds = 0.6
        /// A flip sooner than this after presentation cannot be an answer to it.
        public var minResponseLatency: Seconds = 0.004
        /// By the sensor's own clock (`LightCheckConfig.sensorClock`), a change sooner than
        /// this after a round's presentation is no answer to that round: a light sensor
        /// answers a patch one display frame after it shows at the earliest
        /// (HARDWARE-MODEL.md: 1–4 frames).
        public var minSensorResponse: Seconds = 0.010
        /// By the sensor's own clock, the latest a light sensor answers a patch after it shows
        /// before anything is learned: 4 display frames at 60 Hz (HARDWARE-MODEL.md: 1–4
        /// frames) and 5 ms for the clock's estimate (`setTable` sets it for the display).
        /// A staggered round's later probes (`LightCheckConfig.staggeredProbes`) start no
        /// sooner than this span apart, so an answer's change tells which of them it saw.
        public var maxSensorResponse: Seconds = Self.maxSensorResponse(refreshHz: 60)
        /// The links' BLE connection interval: how far the fastest notification seen may
        /// itself have waited (`DeviceClockLatency.fastestDelayBound`), which every change
        /// read by the sensor's clock may be late by.
        public var bleInterval: Seconds = 0.03

        public init() {}

        /// Sets the priors that the table's display (`refreshHz`) and Bluetooth links
        /// (connection interval `bleInterval`) make: `clockPriorDeadline` and
        /// `maxSensorResponse`. docs/lightcheck.md "The table's display and links".
        public mutating func setTable(refreshHz: Double, bleInterval: Seconds) {
            clockPriorDeadline = Self.clockPriorDeadline(refreshHz: refreshHz, bleInterval: bleInterval)
            maxSensorResponse = Self.maxSensorResponse(refreshHz: refreshHz)
            self.bleInterval = bleInterval
        }

        /// The prior deadline of a sensor with a clock on a table whose display refreshes at
        /// `refreshHz` and whose Bluetooth links have connection interval `bleInterval`: a
        /// sensor answers 1–4 display frames after a patch shows (HARDWARE-MODEL.md), its
        /// notification waits up to one connection interval, and the host stack and a margin
        /// add `clockPriorAllowance` (60 Hz and 30 ms give `clockPriorDeadline`'s 0.11 s).
        /// docs/lightcheck.md "The table's display and links".
        public static func clockPriorDeadline(refreshHz: Double, bleInterval: Seconds) -> Seconds {
            4 / refreshHz + bleInterval + clockPriorAllowance
        }

        /// The prior latest response of a sensor on a display refreshing at `refreshHz`, by its
        /// clock: 4 display frames (HARDWARE-MODEL.md: 1–4) and 5 ms for the clock's estimate.
        public static func maxSensorResponse(refreshHz: Double) -> Seconds { 4 / refreshHz + 0.005 }

        /// Host stack and margin in `clockPriorDeadline(refreshHz:bleInterval:)`: 13.3 ms.
        public static let clockPriorAllowance: Seconds = 0.11 - 4.0 / 60 - 0.03

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let d = Settings()
            func v(_ k: CodingKeys, _ def: Double) throws -> Double { try c.decodeIfPresent(Double.self, forKey: k) ?? def }
            priorDeadline = try v(.priorDeadline, d.priorDeadline)
            priorMean = try v(.priorMean, d.priorMean)
            priorWeight = try v(.priorWeight, d.priorWeight)
            clockPriorDeadline = try v(.clockPriorDeadline, d.clockPriorDeadline)
            clockPriorWeight = try v(.clockPriorWeight, d.clockPriorWeight)
            window = try c.decodeIfPresent(Int.self, forKey: .window) ?? d.window
            quantile = try v(.quantile, d.quantile)
            slack = try v(.slack, d.slack)
            margin = try v(.margin, d.margin)
            minDeadline = try v(.minDeadline, d.minDeadline)
            maxDeadline = try v(.maxDeadline, d.maxDeadline)
            minResponseLatency = try v(.minResponseLatency, d.minResponseLatency)
            minSensorResponse = try v(.minSensorResponse, d.minSensorResponse)
            maxSensorResponse = try v(.maxSensorResponse, d.maxSensorResponse)
            bleInterval = try v(.bleInterval, d.bleInterval)
        }

        /// These settings for a sensor whose notifications carry its own clock: its prior is
        /// `clockPriorDeadline` worth `clockPriorWeight` answers.
        public var withSensorClock: Settings {
            var s = self
            s.priorDeadline = clockPriorDeadline
            s.priorWeight = clockPriorWeight
            return s
        }

        var validationProblem: String? {
            if !(minDeadline > 0 && minDeadline <= maxDeadline) { return "latency.minDeadline must be positive and at most maxDeadline" }
            if !(priorDeadline >= minDeadline && priorDeadline <= maxDeadline) { return "latency.priorDeadline must lie within [minDeadline, maxDeadline]" }
            if !(clockPriorDeadline >= minDeadline && clockPriorDeadline <= maxDeadline) { return "latency.clockPriorDeadline must lie within [minDeadline, maxDeadline]" }
            if !(quantile > 0 && quantile <= 1) { return "latency.quantile must lie in (0, 1]" }
            if window < 1 { return "latency.window must be at least 1" }
            if !(priorWeight >= 0) || !(clockPriorWeight >= 0) || !(slack >= 1) || !(margin >= 0) {
                return "latency.priorWeight, clockPriorWeight, slack and margin must be non-negative (slack at least 1)"
            }
            if !(minSensorResponse >= 0 && minSensorResponse <= 0.1) { return "latency.minSensorResponse must lie in [0, 0.1] seconds (got \(minSensorResponse))" }
            if !(bleInterval >= 0.0075 && bleInterval <= 0.4) { return "latency.bleInterval must lie in [0.0075, 0.4] seconds (got \(bleInterval))" }
            if !(maxSensorResponse > minSensorResponse && maxSensorResponse <= 0.5) {
                return "latency.maxSensorResponse must lie above minSensorResponse and at most 0.5 seconds (got \(maxSensorResponse))"
            }
            return nil
        }
    }

    /// Most recent samples, oldest first.
    public private(set) var samples: [Seconds] = []
    /// Most recent sensor responses by the sensor's own clock (presentation → change), oldest
    /// first, at most `window`: how long the sensor itself takes, without the link's wait.
    public private(set) var responses: [Seconds] = []

    public init(samples: [Seconds] = [], responses: [Seconds] = []) { self.samples = samples; self.responses = responses }

    private enum CodingKeys: String, CodingKey { case samples, responses }

    /// A model saved before responses were learned decodes with none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        samples = try c.decode([Seconds].self, forKey: .samples)
        responses = try c.decodeIfPresent([Seconds].self, forKey: .responses) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(samples, forKey: .samples)
        if !responses.isEmpty { try c.encode(responses, forKey: .responses) }
    }

    /// Records one sensor response (presentation → change, by the sensor's clock). Values
    /// outside [0, `maxDeadline`] or non-finite are ignored.
    public mutating func record(response: Seconds, settings: Settings) {
        guard response.isFinite, response >= 0, response <= settings.maxDeadline else { return }
        Self.append(response, to: &responses, window: settings.window)
    }

    /// Appends, keeping the newest `window`.
    private static func append(_ x: Seconds, to list: inout [Seconds], window: Int) {
        list.append(x)
        if list.count > window { list.removeFirst(list.count - window) }
    }

    /// When, after a patch shows, this sensor's answer to it can change the sensor (by its
    /// clock), once `minimum` responses are learned: from the earlier of `minSensorResponse`
    /// and the fastest response less `margin`, to the later of `maxSensorResponse` and the
    /// slowest response × `slack` + `margin`. Learning only widens the prior span, so a
    /// quick sensor's few samples never narrow it below what the hardware may do. Nil
    /// before `minimum` responses (with `minimum` 0 and none learned: the prior span).
    public func responseSpan(_ s: Settings, minimum: Int) -> ClosedRange<Seconds>? {
        guard responses.count >= minimum else { return nil }
        guard let lo = responses.min(), let hi = responses.max() else { return s.minSensorResponse...s.maxSensorResponse }
        return min(s.minSensorResponse, lo - s.margin)...max(s.maxSensorResponse, hi * s.slack + s.margin)
    }

    /// Records one observed response latency (presentation → flip). Non-finite or negative
    /// values are ignored.
    public mutating func record(_ latency: Seconds, settings: Settings) {
        guard latency.isFinite, latency >= 0 else { return }
        Self.append(latency, to: &samples, window: settings.window)
    }

    /// How long after presentation to wait for an answer before counting its absence.
    public func deadline(_ s: Settings) -> Seconds {
        guard !samples.isEmpty else { return s.priorDeadline }
        let sorted = samples.sorted()
        let rank = min(sorted.count - 1, max(0, Int((s.quantile * Double(sorted.count)).rounded(.up)) - 1))
        let learned = sorted[rank] * s.slack + s.margin
        let n = Double(sorted.count)
        let w = n / (n + s.priorWeight)
        let blended = w * learned + (1 - w) * s.priorDeadline
        return min(s.maxDeadline, max(s.minDeadline, blended))
    }

    /// Expected latency of an answer (for planning only).
    public func expectedLatency(_ s: Settings) -> Seconds {
        guard !samples.isEmpty else { return s.priorMean }
        let n = Double(samples.count)
        let mean = samples.reduce(0, +) / n
        return (n * mean + s.priorWeight * s.priorMean) / (n + s.priorWeight)
    }
}
