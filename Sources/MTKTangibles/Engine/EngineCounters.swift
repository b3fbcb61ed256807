// Running counts of inputs the engine ignored (for metrics and diagnostics).

/// Totals since the engine started.
public struct EngineCounters: Hashable, Sendable, Codable {
    public var frames: UInt64 = 0
    /// Sensor events for tangible ids without a (PERC) definition.
    public var ignoredSensorEvents: UInt64 = 0
    /// Outcomes for requests that are not (or no longer) pending.
    public var ignoredOutcomes: UInt64 = 0
    /// Contact updates of unknown contacts that were not a begin.
    public var unknownContactUpdates: UInt64 = 0

    public init() {}
}
