// The wall-clock-to-monotonic offset that maps event times of a device that refused
// EVIOCSCLOCKID: it must not move when the reading thread is preempted.
import Foundation
import Synchronization
import Testing
@testable import PercSystem

@Suite struct MonotonicClockTests {
    @Test func theRealtimeOffsetStaysPutWhileEveryCoreIsBusy() {
        // Busy threads on every core (plus one) so the reading thread is preempted often.
        let stop = Atomic<Bool>(false)
        let busy = ProcessInfo.processInfo.activeProcessorCount + 1
        let started = Atomic<Int>(0)
        for _ in 0..<busy {
            Thread {
                started.add(1, ordering: .relaxed)
                var x = 0.0
                while !stop.load(ordering: .relaxed) { x += 1; if x > 1e12 { x = 0 } }
            }.start()
        }
        while started.load(ordering: .relaxed) < busy { usleep(1000) }
        var low = Double.infinity, high = -Double.infinity
        let until = Date().addingTimeInterval(1.0)
        var calls = 0
        while Date() < until {
            let o = MonotonicClock.realtimeOffset()
            low = min(low, o); high = max(high, o)
            calls += 1
        }
        stop.store(true, ordering: .relaxed)
        // A second's slew by NTP is at most 0.5 ms; a preempted read was off by 16 ms in CI.
        #expect(calls > 1000)
        #expect(high - low < 0.002, "offset spread \((high - low) * 1e3) ms over \(calls) calls")
        // It is the wall clock minus the monotonic one.
        var rt = timespec(); clock_gettime(CLOCK_REALTIME, &rt)
        let plain = Double(rt.tv_sec) + Double(rt.tv_nsec) / 1e9 - MonotonicClock.now()
        #expect(abs(plain - MonotonicClock.realtimeOffset()) < 0.05)
    }
}
