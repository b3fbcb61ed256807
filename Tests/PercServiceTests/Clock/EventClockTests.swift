// The event-driven frame clock: cuts on input, the max-rate cap, the busy timer, no ticks while quiet.
import Foundation
import Synchronization
import Testing
import MTKTangibles
@testable import PercRuntime
import PercInput
import PercSystem
import PercTestSupport

@Suite struct EventClockTests {
    @Test func inputCutsAtOnceUnlessTheCapSaysWait() {
        var s = TickSchedule(mode: .events(maxHz: 100, burst: 1, busyHz: 10, followPresented: false))
        s.start(at: 0)
        #expect(s.nextDeadline == .infinity, "a quiet surface has no deadline")
        #expect(s.timerFired(now: 5) == nil)
        #expect(s.inputPending(now: 1.0) == 1.0)
        // 2 ms later: within the 10 ms cap, so the input waits until 1.01.
        #expect(s.inputPending(now: 1.002) == nil)
        #expect(abs(s.earliestInputCut - 1.01) < 1e-12)
        #expect(s.inputPending(now: 1.01) == 1.01)
    }

    /// The cap is a token bucket: `burst` cuts back to back, then one per `1 / maxHz`; a
    /// quiet spell refills it, never above `burst`; over any window at most
    /// `burst + window * maxHz` inputs are cut.
    @Test func theCapLetsABurstThroughThenHoldsTheRate() {
        var s = TickSchedule(mode: .events(maxHz: 1000, burst: 4, busyHz: 10, followPresented: false))
        s.start(at: 0)
        for k in 0..<4 { #expect(s.inputPending(now: 1.0 + Double(k) * 1e-5) != nil, "cut \(k) of the burst") }
        #expect(s.inputPending(now: 1.00005) == nil, "the bucket is empty")
        // One token takes 1 ms; the 30 µs of the burst already brought back 0.03 of one.
        #expect(abs(s.earliestInputCut - 1.001) < 1e-9, "\(s.earliestInputCut)")
        #expect(s.inputPending(now: 1.0009) == nil)
        #expect(s.inputPending(now: 1.001) != nil)
        // A long quiet spell fills the bucket to 4, not more.
        for k in 0..<4 { #expect(s.inputPending(now: 5.0 + Double(k) * 1e-5) != nil) }
        #expect(s.inputPending(now: 5.00005) == nil)
        // A flood: an input every 10 µs for one second is cut at most 4 + 1000 times.
        var t = 10.0, cuts = 0
        while t < 11.0 {
            if s.inputPending(now: t) != nil { cuts += 1 }
            t += 1e-5
        }
        #expect(cuts <= 4 + 1000 && cuts >= 990, "\(cuts) cuts in 1 s")
    }

    @Test func busySurfaceKeepsATimerQuietOneSleeps() {
        var s = TickSchedule(mode: .events(maxHz: 1000, busyHz: 10, followPresented: false))
        s.start(at: 0)
        _ = s.inputPending(now: 2)
        s.wake(.everyFrame, occupied: false)
        #expect(s.nextDeadline == 2.1)
        #expect(s.timerFired(now: 2.05) == nil)
        #expect(s.timerFired(now: 2.1) == 2.1)
        #expect(s.nextDeadline == 2.2)
        s.wake(.never, occupied: false)
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
