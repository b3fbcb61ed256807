// Latency of PERC v1 notifications from their device time: absolute on a shared clock, else jitter.

/// Estimates how late notifications arrive from their 32-bit microsecond device time.
///
/// A PERC's clock is free running, so only delays relative to the fastest notification seen
/// can be known (`jitter`). When device time and CLOCK_MONOTONIC agree to within a few
/// seconds (the emulator stamps CLOCK_MONOTONIC µs mod 2^32) the difference is the real
/// send-to-arrival latency and is reported as `latency`.
public struct DeviceClockLatency: Sendable {
    public init() {}

    static let sharedClockLimit: UInt32 = 5_000_000
    private var minOffset: UInt32?

    /// Returns (latency if the clocks are shared, delay above the fastest seen), in seconds.
    public mutating func observe(deviceTime: UInt32, arrival: Double) -> (latency: Double?, jitter: Double) {
        let arrivalMicros = UInt32(truncatingIfNeeded: UInt64(arrival * 1_000_000))
        let offset = arrivalMicros &- deviceTime
        if let m = minOffset, offset &- m > UInt32.max / 2 { minOffset = offset }  // earlier than the best so far
        if minOffset == nil { minOffset = offset }
        let jitter = Double(offset &- minOffset!) / 1e6
        return (offset < Self.sharedClockLimit ? Double(offset) / 1e6 : nil, jitter)
    }
}
