// Latency of PERC v1 notifications from their device time: absolute on a shared clock, else jitter.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Estimates how late notifications arrive from their 32-bit microsecond device time.
///
/// A PERC's clock is free running, so only delays relative to the fastest notification seen
/// can be known (`jitter`): the link's latency minus its least. When device time and
/// CLOCK_MONOTONIC agree to within a few seconds (the emulator stamps CLOCK_MONOTONIC µs mod
/// 2^32) the difference is the real send-to-arrival latency and is reported as `latency`.
///
/// The fastest notification is looked for among the last `window` to 2 × `window` samples
/// (two buckets), so a device clock that drifts against ours (tens of ppm: milliseconds a
/// minute) moves the reference with it, and the state stays the same size however long the
/// link lives. Pure: the caller gives every time.
public struct DeviceClockLatency: Sendable {
    public static let window = 64
    static let sharedClockLimit: UInt32 = 5_000_000

    /// The least offset (arrival µs − device µs, mod 2^32) of the current and the previous bucket.
    private var current: UInt32?
    private var previous: UInt32?
    private var inCurrent = 0
    /// The notifications the fastest is looked for among (the current and the previous
    /// bucket): how well the fastest delay is known.
    public var observed: Int { (previous == nil ? 0 : Self.window) + inCurrent }

    public init() {}

    /// A bound on how late the fastest notification seen itself arrived (the part of every
    /// delay `observe` cannot see), for a link whose delays spread uniformly over `spread`
    /// (one BLE connection interval and the host stack): the fastest of n such delays exceeds
    /// it with probability `1 − confidence`. Infinite before any notification.
    public func fastestDelayBound(spread: Double, confidence: Double = 0.999) -> Double {
        guard observed > 0 else { return .infinity }
        return spread * (1 - pow(1 - confidence, 1 / Double(observed)))
    }

    /// Whether `a` is earlier than `b` on the wrapping offset scale.
    private static func earlier(_ a: UInt32, _ b: UInt32) -> Bool { b &- a != 0 && b &- a < UInt32.max / 2 }

    private var minOffset: UInt32? {
        guard let c = current else { return previous }
        guard let p = previous else { return c }
        return Self.earlier(p, c) ? p : c
    }

    /// Returns (latency if the clocks are shared, delay above the fastest seen), in seconds.
    public mutating func observe(deviceTime: UInt32, arrival: Double) -> (latency: Double?, jitter: Double) {
        let arrivalMicros = UInt32(truncatingIfNeeded: UInt64(max(0, arrival) * 1_000_000))
        let offset = arrivalMicros &- deviceTime
        if current == nil || Self.earlier(offset, current!) { current = offset }
        let jitter = Double(offset &- minOffset!) / 1e6
        inCurrent += 1
        if inCurrent >= Self.window {
            previous = current
            current = nil; inCurrent = 0
        }
        return (offset < Self.sharedClockLimit ? Double(offset) / 1e6 : nil, jitter)
    }
}
