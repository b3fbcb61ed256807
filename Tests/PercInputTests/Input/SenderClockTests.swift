// A sender's clock on the monotonic timeline over a long run: drift followed, steps recovered, never after arrival.
import Testing
import MTKTangibles
@testable import PercInput
import PercTestSupport

@Suite struct SenderClockTests {
    /// A day of samples every second from a sender whose clock runs 50 ppm slow (4.3 s a day),
    /// each delayed 1–6 ms on the way: mapped times stay within 10 ms before their arrival at
    /// the end as at the start (a plain minimum of the offset ends 4.3 s behind).
    @Test func aSlowSendersClockIsFollowedForADay() {
        var clock = SenderClock()
        var plainMin = Double.infinity
        var worst: Seconds = 0, plainLag: Seconds = 0
        var rng = SplitMix64(seed: 5)
        for n in 0..<86_400 {
            let sent = 1000 + Double(n)
            let stamp = 7_000_000 + (sent - 1000) * (1 - 50e-6)
            let arrival = sent + 0.001 + Double.random(in: 0..<0.005, using: &rng)
            let t = clock.time(stamp: stamp, arrival: arrival)
            if t > arrival + 1e-9 { Issue.record("sample \(n) placed after its arrival") }
            worst = max(worst, arrival - t)
            plainMin = min(plainMin, arrival - stamp)
            plainLag = arrival - (stamp + plainMin)
        }
        #expect(worst < 0.015, "worst \(worst) s before arrival")
        #expect(plainLag > 4, "a plain minimum: \(plainLag) s behind at the end")
        #expect(clock.reanchored == 0)
    }

    /// The sender's clock steps back 62 s: the next sample is placed at its arrival, not 62 s before.
    @Test func aStepBackIsRecoveredAtOnce() {
        var clock = SenderClock()
        for n in 0..<100 { _ = clock.time(stamp: 500 + Double(n) * 0.01, arrival: 20 + Double(n) * 0.01 + 0.002) }
        let t = clock.time(stamp: 500 + 1.0 - 62, arrival: 21.002)
        #expect(abs(t - 21.002) < 1e-9)
        #expect(clock.reanchored == 1)
        // And forward: the next sample's smaller offset is taken at once.
        let u = clock.time(stamp: 439 + 0.02 + 100, arrival: 21.024)
        #expect(abs(u - 21.024) < 1e-9)
    }

    /// The least-delayed sample sets the clock: a later, slower sample is placed before its arrival.
    @Test func theLeastDelayedSampleSetsTheOffset() {
        var clock = SenderClock()
        #expect(abs(clock.time(stamp: 50, arrival: 10.003) - 10.003) < 1e-9)
        let slow = clock.time(stamp: 50.1, arrival: 10.140)
        #expect(abs(slow - 10.103) < 0.001, "\(slow)")
        let fast = clock.time(stamp: 50.2, arrival: 10.201)
        #expect(abs(fast - 10.201) < 1e-9)
    }
}
