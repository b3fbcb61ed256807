// The link's back-off as a value: doubling, its cap, the first-failure check, the reset.
import Testing
@testable import PercBlueZ

@Suite struct LinkBackoffTests {
    @Test func doublesUpToItsCapAndStartsOverOnReset() {
        var b = LinkBackoff(initial: .milliseconds(250), max: .seconds(1))
        #expect(b.isFirst)
        #expect([b.next(), b.next(), b.next(), b.next()] == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(1)])
        #expect(!b.isFirst && b.current == .seconds(1))
        b.reset()
        #expect(b.isFirst && b.next() == .milliseconds(250))
    }

    @Test func aCapBelowTheFirstWaitCapsTheWaitsAfterIt() {
        var b = LinkBackoff(initial: .seconds(2), max: .seconds(1))
        #expect(b.next() == .seconds(2) && !b.isFirst && b.next() == .seconds(1) && b.next() == .seconds(1))
    }
}
