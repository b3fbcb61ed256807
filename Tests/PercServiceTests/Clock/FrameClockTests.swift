// The frame clock: fixed-rate deadlines, overruns, following presented frames, coalesced samples.
import Foundation
import Synchronization
import Testing
import MTKTangibles
@testable import PercRuntime
import PercInput
import PercSystem

@Suite struct FrameClockTests {
    @Test func fixedRateTicksOnAbsoluteDeadlines() {
        var s = TickSchedule(mode: .fixedRate(hz: 100))
        s.start(at: 10)
        #expect(s.timerFired(now: 10.005) == nil)
        #expect(s.timerFired(now: 10.0102) == 10.0102)
        // Woken a little late: the next deadline stays on the 10 ms grid (no drift).
        #expect(abs(s.nextDeadline - 10.02) < 1e-9)
        #expect(s.timerFired(now: 10.0201) == 10.0201)
    }

    @Test func overrunsSkipDeadlinesInsteadOfBursting() {
        var s = TickSchedule(mode: .fixedRate(hz: 100))
        s.start(at: 0)
        _ = s.timerFired(now: 0.0355)
        #expect(s.missedTicks == 2)
        #expect(abs(s.nextDeadline - 0.04) < 1e-9)
        #expect(s.timerFired(now: 0.036) == nil)
    }

    @Test func followModeCutsAtPresentedTimesAndFallsBackToTheTimer() {
        var s = TickSchedule(mode: .followPresented(fallbackHz: 10))
        s.start(at: 0)
        #expect(s.presented(at: 0.016, now: 0.017) == 0.016)
        #expect(s.presented(at: 0.010, now: 0.018) == nil) // earlier than the last cut
        #expect(s.timerFired(now: 0.05) == nil)           // fallback deadline was pushed
        #expect(s.timerFired(now: 0.12) == 0.12)
        var fixed = TickSchedule(mode: .fixedRate(hz: 120))
        #expect(fixed.presented(at: 1, now: 1) == nil)
    }

    @Test func coalescedSamplesStayInTheirFrameInArrivalOrder() {
        let clock = FrameClock()
        let o = InputOrigin(kind: .json, device: "t")
        for (i, t) in [0.001, 0.003, 0.006].enumerated() {
            clock.add(ContactUpdate(origin: o, contactID: 1, phase: i == 0 ? .begin : .move, position: Vec2(Double(i), 0), time: t, arrival: t))
        }
        clock.add(SensorEvent(tangible: 3, kind: .field, value: 1, arrival: 0.004))
        let f = clock.cut(at: 0.008)
        #expect(f.contacts.map(\.position.x) == [0, 1, 2])
        #expect(f.contacts.map(\.arrival) == [0.001, 0.003, 0.006])
        #expect(f.time == 0.008 && f.sensorEvents.count == 1)
        #expect(clock.cut(at: 0.016).contacts.isEmpty)
    }

    @Test func tickerRunsAtTheConfiguredRateOnItsOwnThread() async throws {
        let clock = FrameClock(mode: .fixedRate(hz: 200))
        let times = Mutex<[Seconds]>([])
        clock.start { f in times.withLock { $0.append(f.time) } }
        let o = InputOrigin(kind: .json, device: "t")
        let t0 = MonotonicClock.now()
        clock.add(ContactUpdate(origin: o, contactID: 9, phase: .begin, position: .zero, time: t0, arrival: t0))
        try await Task.sleep(for: .milliseconds(300))
        clock.stop()
        let elapsed = MonotonicClock.now() - t0
        let ts = times.withLock { $0 }
        // The ticker follows absolute deadlines: however long a loaded machine kept this test
        // asleep, it never ticks faster than 200 Hz over the time that really passed.
        #expect(ts.count >= 1 && Double(ts.count) <= elapsed * 200 + 2, "\(ts.count) ticks in \(elapsed) s")
        #expect(zip(ts, ts.dropFirst()).allSatisfy { $0 < $1 })
        var received: [Frame] = []
        for await f in clock.frames { received.append(f) }
        // The stream keeps the newest frames only (a slow consumer never blocks the clock).
        #expect(received.count == min(ts.count, 256))
        #expect(received.map(\.time) == Array(ts.suffix(received.count)))
        if ts.count <= 256 {
            #expect(received.flatMap(\.contacts).map(\.contactID) == [9])
            #expect((received.first { !$0.contacts.isEmpty }?.time ?? -1) >= t0)
        }
    }

    @Test func followModeTicksOnPresentedReports() async throws {
        let clock = FrameClock(mode: .followPresented(fallbackHz: 0.05)) // fallback tick only after 20 s
        let times = Mutex<[Seconds]>([])
        clock.start { f in times.withLock { $0.append(f.time) } }
        let now = MonotonicClock.now()
        clock.add(PresentedOverlay(overlayID: 1, from: now))
        try await Task.sleep(for: .milliseconds(100))
        clock.add(PresentedOverlay(overlayID: 2, from: now + 0.05))
        try await Task.sleep(for: .milliseconds(100))
        clock.stop()
        let ts = times.withLock { $0 }
        #expect(Array(ts.prefix(2)) == [now, now + 0.05])
    }
}
