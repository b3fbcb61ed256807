// The event-driven frame clock: cuts on input, the max-rate cap, the busy timer, no ticks while quiet.
import Foundation
import Synchronization
import Testing
import MTKTangibles
@testable import PercService
import PercInput
import PercSystem
import PercTestSupport

@Suite struct EventClockTests {
    @Test func inputCutsAtOnceUnlessTheCapSaysWait() {
        var s = TickSchedule(mode: .events(maxHz: 100, busyHz: 10, followPresented: false))
        s.start(at: 0)
        #expect(s.nextDeadline == .infinity, "a quiet surface has no deadline")
        #expect(s.timerFired(now: 5) == nil)
        #expect(s.inputPending(now: 1.0) == 1.0)
        // 2 ms later: within the 10 ms cap, so the input waits until 1.01.
        #expect(s.inputPending(now: 1.002) == nil)
        #expect(abs(s.earliestInputCut - 1.01) < 1e-12)
        #expect(s.inputPending(now: 1.01) == 1.01)
    }

    @Test func busySurfaceKeepsATimerQuietOneSleeps() {
        var s = TickSchedule(mode: .events(maxHz: 1000, busyHz: 10, followPresented: false))
        s.start(at: 0)
        _ = s.inputPending(now: 2)
        s.busy(true)
        #expect(s.nextDeadline == 2.1)
        #expect(s.timerFired(now: 2.05) == nil)
        #expect(s.timerFired(now: 2.1) == 2.1)
        #expect(s.nextDeadline == 2.2)
        s.busy(false)
        #expect(s.nextDeadline == .infinity)
        #expect(s.timerFired(now: 100) == nil)
    }

    @Test func presentedReportsCutInFollowEventMode() {
        var s = TickSchedule(mode: .events(maxHz: 1000, busyHz: 10, followPresented: true))
        s.start(at: 0)
        #expect(s.presented(at: 1.5, now: 1.6) == 1.5)
        #expect(s.presented(at: 1.4, now: 1.6) == nil, "never earlier than the last cut")
        var plain = TickSchedule(mode: .events(maxHz: 1000, busyHz: 10, followPresented: false))
        plain.start(at: 0)
        #expect(plain.presented(at: 1.5, now: 1.6) == nil)
    }

    /// The real clock thread: a contact cuts a frame right away (the busy timer is 0.1 Hz,
    /// so only input can have cut it), and nothing is cut while no input comes.
    @Test func clockThreadCutsOnInputAndSleepsWhenQuiet() async throws {
        let clock = FrameClock(mode: .events(maxHz: 1000, busyHz: 0.1, followPresented: false))
        let frames = Mutex<[(Seconds, Int)]>([])
        clock.start { f in frames.withLock { $0.append((f.time, f.contacts.count)) } }
        try await Task.sleep(for: .milliseconds(200))
        #expect(frames.withLock { $0.isEmpty }, "no frames without input")
        let o = InputOrigin(kind: .json, device: "t")
        let t0 = MonotonicClock.now()
        clock.add(contacts: [ContactUpdate(origin: o, contactID: 1, phase: .begin, position: .zero, time: t0, arrival: t0)])
        #expect(await eventually(2) { frames.withLock { $0.count == 1 } })
        try await Task.sleep(for: .milliseconds(200))
        clock.stop()
        let got = frames.withLock { $0 }
        #expect(got.count == 1 && got[0].1 == 1 && got[0].0 >= t0)
    }
}
