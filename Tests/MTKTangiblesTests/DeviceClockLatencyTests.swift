// The device-clock latency estimate (PERC GATT v1 device time): monitor's figures and the
// light-check scheduler's reading of when a sensor changed.
import Testing
@testable import MTKTangibles

@Suite struct DeviceClockLatencyTests {
    @Test func sharedClockGivesTrueLatency() {
        var l = DeviceClockLatency()
        let r = l.observe(deviceTime: 1_000_000, arrival: 1.000_250)
        #expect(r.latency.map { abs($0 - 0.000_25) < 1e-6 } == true)
        #expect(r.jitter == 0)
    }

    @Test func freeRunningClockGivesDelayOverTheFastest() {
        var l = DeviceClockLatency()
        // Device clock 100 s behind ours: no absolute latency, only jitter.
        let a = l.observe(deviceTime: 5_000_000, arrival: 105.000_000)
        let b = l.observe(deviceTime: 5_010_000, arrival: 105.013_000)
        let c = l.observe(deviceTime: 5_020_000, arrival: 105.019_000)
        #expect(a.latency == nil)
        #expect(abs(b.jitter - 0.003) < 1e-6)
        // Faster than any before: becomes the new reference.
        #expect(c.jitter == 0)
    }

    @Test func deviceTimeWrapsAt32Bits() {
        var l = DeviceClockLatency()
        let arrival = Double(UInt64(UInt32.max) + 100) / 1e6  // our µs counter just wrapped
        let r = l.observe(deviceTime: UInt32.max - 99, arrival: arrival)
        #expect(r.latency.map { abs($0 - 0.000_2) < 1e-6 } == true)
    }
}

@Suite struct DeviceClockDriftTests {
    /// A PERC clock running 50 ppm slow: each notification's offset grows 50 µs per second.
    /// The fastest of the last 64–128 notifications is the reference, so a notification with
    /// the least link delay reads as about that, not as the drift gathered since the first
    /// (`percbridge monitor` on a link that lives for days).
    @Test func aDriftingClockIsFollowed() {
        var l = DeviceClockLatency()
        var device: UInt32 = 7_000_000
        var arrival = 50.0
        var slowest = 0.0
        for k in 0..<2_000 {
            arrival += 1
            device &+= 999_950
            let link = Double(k % 10) * 0.003  // 0–27 ms
            let jitter = l.observe(deviceTime: device, arrival: arrival + link).jitter
            if k >= 2 * DeviceClockLatency.window { slowest = max(slowest, jitter) }
        }
        // 2,000 s at 50 ppm: 100 ms of drift; the reference is at most 128 s (6.4 ms) old.
        let fast = l.observe(deviceTime: device &+ 999_950, arrival: arrival + 1).jitter
        #expect(fast < 0.01)
        #expect(slowest < 0.04)
    }

    @Test func theFirstSampleIsItsOwnReference() {
        var l = DeviceClockLatency()
        #expect(l.observe(deviceTime: 5, arrival: 1).jitter == 0)
    }
}
