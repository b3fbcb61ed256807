// The memory bounds and the analysis windows of the trace table (thesis 3.2.1 "Compression").

/// Settings of `TraceTable`. Decoding a partial object keeps the defaults for absent keys.
public struct TraceSettings: Hashable, Sendable, Codable {
    /// Ended traces lose their entries this long after their end (the summary stays).
    public var compressTime: Seconds = 5
    /// Ended traces are forgotten this long after their end (queries then return nil).
    public var deletionTime: Seconds = 30
    /// A live trace keeps at most this many entries (the oldest are dropped first); 1200 is
    /// ten seconds at 120 Hz, more than any recogniser looks back.
    public var maxEntriesPerTrace: Int = 1200
    /// A live trace keeps at most this many coalesced samples.
    public var maxSamplesPerTrace: Int = 256
    /// `isStationary` compares the mean position over the first and the second half of
    /// this window; averaging keeps marker jitter (σ ≈ 0.7 mm) from looking like motion.
    public var stationaryWindow: Seconds = 0.25
    /// ...and calls the trace stationary when the two means are closer than this (mm).
    public var stationaryThreshold: Double = 1.5

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = TraceSettings()
        compressTime = try c.decodeIfPresent(Seconds.self, forKey: .compressTime) ?? d.compressTime
        deletionTime = try c.decodeIfPresent(Seconds.self, forKey: .deletionTime) ?? d.deletionTime
        maxEntriesPerTrace = try c.decodeIfPresent(Int.self, forKey: .maxEntriesPerTrace) ?? d.maxEntriesPerTrace
        maxSamplesPerTrace = try c.decodeIfPresent(Int.self, forKey: .maxSamplesPerTrace) ?? d.maxSamplesPerTrace
        stationaryWindow = try c.decodeIfPresent(Seconds.self, forKey: .stationaryWindow) ?? d.stationaryWindow
        stationaryThreshold = try c.decodeIfPresent(Double.self, forKey: .stationaryThreshold) ?? d.stationaryThreshold
    }
}
