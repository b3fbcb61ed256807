// Wall-clock event times onto the monotonic timeline when the wall clock steps: the pure mapping.
import Testing
import MTKTangibles
@testable import PercInput

@Suite struct WallClockEventTimesTests {
    // The wall clock runs 1,000,000 s ahead of the monotonic one (times agree to ~1e-10 s);
    // events are read 2 ms after their stamp.
    static let shift: Seconds = 1_000_000

    @Test func timesInTheWindowKeepTheirOwnValue() {
        var m = WallClockEventTimes()
        for n in 0..<100 {
            let arrival = 50 + Double(n) * 0.01
            let t = m.map(wall: arrival - 0.002 + Self.shift, shift: Self.shift, arrival: arrival)
            #expect(abs(t - (arrival - 0.002)) < 1e-6, "frame \(n): \(t)")
        }
        #expect(m.replaced == 0)
        #expect(m.notice(at: 51) == nil)
    }

    @Test func aStepBackOrForwardStampsEventsWhenReadAndSaysSoOnceASecond() throws {
        var m = WallClockEventTimes()
        var times: [Seconds] = []
        // 0.0–0.5 s: the clock stepped back 62 s after the stamps; 0.5–1.0 s: forward 30 s; then right.
        for n in 0..<150 {
            let arrival = 10 + Double(n) * 0.01
            let error: Seconds = n < 50 ? 62 : n < 100 ? -30 : 0
            times.append(m.map(wall: arrival - 0.002 + error + Self.shift, shift: Self.shift, arrival: arrival))
            let line = m.notice(at: arrival)
            if n == 0 { #expect(try #require(line).contains("61.998 s after the time they were read (the wall clock stepped?)")) }
            else if n == 100 { #expect(try #require(line).contains("agree with the time they were read again (100 replaced so far)")) }
            else { #expect(line == nil, "frame \(n): \(line ?? "")") }
        }
        #expect(m.replaced == 100)
        for n in 0..<100 { #expect(times[n] == 10 + Double(n) * 0.01, "frame \(n) stamped with its arrival") }
        #expect(abs(times[100] - (11 - 0.002)) < 1e-9)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func aChangeDueSoonerThanASecondAfterTheLastWaitsForTheNextEvent() throws {
        var m = WallClockEventTimes()
        _ = m.map(wall: 100 + Self.shift, shift: Self.shift, arrival: 0)
        let first = m.notice(at: 0)
        #expect(try #require(first).contains("100.0 s after"))
        _ = m.map(wall: 0.3 + Self.shift, shift: Self.shift, arrival: 0.3)
        #expect(m.notice(at: 0.3) == nil, "0.3 s after the last line")
        _ = m.map(wall: 1.2 + Self.shift, shift: Self.shift, arrival: 1.2)
        let second = m.notice(at: 1.2)
        #expect(try #require(second).contains("agree with the time they were read again"))
    }

    @Test func aTimeJustAfterItsReadIsTheReadsTimeWithoutANotice() {
        var m = WallClockEventTimes()
        #expect(m.map(wall: 5.00002 + Self.shift, shift: Self.shift, arrival: 5) == 5)
        let own = m.map(wall: 5.004 + Self.shift, shift: Self.shift, arrival: 5.01)
        #expect(abs(own - 5.004) < 1e-6, "its own time")
        #expect(m.map(wall: 4.9 + Self.shift, shift: Self.shift, arrival: 5.02) == own, "never before the last")
        #expect(m.replaced == 0)
        #expect(m.notice(at: 5.02) == nil)
    }
}
