// Trace table: ids, one entry per frame, coalesced samples, end handling, memory bounds, queries.

import Testing
@testable import MTKTangibles
@testable import MTKSimulator

@Suite("TraceTable")
struct TraceTableTests {
    let origin = InputOrigin(kind: .simulator, device: "t")

    func update(_ id: Int64, _ phase: ContactUpdate.Phase, _ p: Vec2, _ t: Seconds) -> ContactUpdate {
        ContactUpdate(origin: origin, contactID: id, phase: phase, position: p, time: t, arrival: t)
    }

    @Test("a trace gets one entry per frame, coalesced samples, and the frame's timestamp")
    func entriesPerFrame() {
        var table = TraceTable()
        table.apply(Frame(number: 1, time: 1.0, contacts: [update(7, .begin, Vec2(0, 0), 0.99)]))
        table.apply(Frame(number: 2, time: 1.01, contacts: [update(7, .move, Vec2(1, 0), 1.002), update(7, .move, Vec2(2, 0), 1.008)]))
        table.apply(Frame(number: 3, time: 1.02))
        let id = table.liveIDs[0]
        let e = table.entries(id)
        #expect(e.map(\.frame) == [1, 2, 3])
        #expect(e.map(\.time) == [1.0, 1.01, 1.02])
        #expect(e.map(\.phase) == [.begin, .move, .move])
        #expect(e[1].position == Vec2(2, 0))
        #expect(table.samples(id).map(\.position) == [Vec2(1, 0)])
        #expect(table.position(id, at: 1.015) == Vec2(2, 0))
        #expect(table.position(id, at: 0.5) == nil)
        #expect(table.beganAt(id) == 1.0)
        #expect(table.age(id, at: 1.5) == 0.5)
    }

    @Test("ids are unique even when a device reuses its contact id")
    func uniqueIDs() {
        var table = TraceTable()
        table.apply(Frame(number: 1, time: 0, contacts: [update(1, .begin, .zero, 0)]))
        table.apply(Frame(number: 2, time: 0.01, contacts: [update(1, .end, .zero, 0.01)]))
        table.apply(Frame(number: 3, time: 0.02, contacts: [update(1, .begin, Vec2(5, 5), 0.02)]))
        let ids = table.liveIDs
        #expect(ids.count == 1)
        #expect(ids[0] == 2)
        #expect(table.summary(1)?.isEnded == true)
    }

    @Test("an ended trace takes part in one more frame, then moves to history")
    func endedTraceLivesOneFrame() {
        var table = TraceTable()
        table.apply(Frame(number: 1, time: 0, contacts: [update(1, .begin, .zero, 0)]))
        let changes = table.apply(Frame(number: 2, time: 0.01, contacts: [update(1, .end, .zero, 0.01)]))
        #expect(changes.ended == [1])
        #expect(table.isLive(1) && !table.isAlive(1))
        let next = table.apply(Frame(number: 3, time: 0.02))
        #expect(next.retired == [1])
        #expect(!table.isLive(1))
        #expect(table.historyCount == 1)
    }

    @Test("compress time drops entries but keeps the summary; deletion time forgets the trace")
    func memoryBounds() {
        var s = TraceSettings()
        s.compressTime = 1; s.deletionTime = 2
        var table = TraceTable(settings: s)
        table.apply(Frame(number: 1, time: 0, contacts: [update(1, .begin, .zero, 0)]))
        table.apply(Frame(number: 2, time: 0.1, contacts: [update(1, .end, Vec2(3, 4), 0.1)]))
        table.apply(Frame(number: 3, time: 1.0))
        #expect(table.entries(1).count == 2)
        table.apply(Frame(number: 4, time: 1.2))
        #expect(table.entries(1).isEmpty)
        #expect(table.summary(1)?.isCompressed == true)
        #expect(table.summary(1)?.lastPosition == Vec2(3, 4))
        #expect(table.summary(1)?.pathLength == 5)
        table.apply(Frame(number: 5, time: 2.2))
        #expect(table.summary(1) == nil)
    }

    @Test("a long-lived trace keeps at most maxEntriesPerTrace entries")
    func entryCap() {
        var s = TraceSettings()
        s.maxEntriesPerTrace = 100
        var table = TraceTable(settings: s)
        table.apply(Frame(number: 1, time: 0, contacts: [update(1, .begin, .zero, 0)]))
        for n in 2...1000 { table.apply(Frame(number: UInt64(n), time: Double(n) / 120)) }
        #expect(table.entries(1).count <= 100)
        #expect(table.summary(1)?.entryCount == 1000)
    }

    @Test("stationary and velocity look at the recent window, jitter aside")
    func stationaryAndVelocity() {
        var table = TraceTable()
        table.apply(Frame(number: 1, time: 0, contacts: [update(1, .begin, .zero, 0), update(2, .begin, .zero, 0)]))
        var rng = SimRandom(seed: 3)
        for n in 1...60 {
            let t = Double(n) / 120
            table.apply(Frame(number: UInt64(n + 1), time: t, contacts: [
                update(1, .move, Vec2(rng.gaussian(0.7), rng.gaussian(0.7)), t),
                update(2, .move, Vec2(100 * t, 0), t),
            ]))
        }
        #expect(table.isStationary(1, at: table.now))
        #expect(!table.isStationary(2, at: table.now))
        let v = table.velocity(2, at: table.now)
        #expect(abs(v.x - 100) < 5 && abs(v.y) < 1)
    }

    /// The mean over the stationary window weighs each touch sample once: a touch sampled at
    /// 60 Hz in a 120 Hz frame loop repeats each sample in the next frame, which does not count.
    @Test func theWindowMeanCountsEachSampleOnce() throws {
        var table = TraceTable()
        table.apply(Frame(number: 0, time: 0, contacts: [update(1, .begin, Vec2(0, 0), 0)]))
        var sent: [(t: Seconds, x: Double)] = []
        for n in 1...60 {
            let t = Double(n) / 120
            var contacts: [ContactUpdate] = []
            if n % 2 == 0 {  // a new sample every other frame, alternating 0 and 3 mm, then 3 mm twice
                let x = n % 8 == 0 ? 0.0 : 3.0
                contacts.append(update(1, .move, Vec2(x, 0), t))
                sent.append((t, x))
            }
            table.apply(Frame(number: UInt64(n), time: t, contacts: contacts))
        }
        let m = try #require(table.windowMean(1, at: table.now))
        let inWindow = sent.filter { $0.t >= table.now - TraceSettings().stationaryWindow }
        #expect(m.samples == inWindow.count, "\(m.samples) samples, \(inWindow.count) sent in the window")
        #expect(abs(m.position.x - inWindow.map(\.x).reduce(0, +) / Double(inWindow.count)) < 1e-9)
        #expect(table.windowMean(99, at: table.now) == nil, "an unknown trace")
    }

    @Test("origins no contact uses are forgotten, so one per app connection ever seen does not pile up")
    func originsAreBounded() {
        var table = TraceTable()
        let stays = InputOrigin(kind: .json, device: "stays")
        table.apply(Frame(number: 1, time: 0, contacts: [ContactUpdate(origin: stays, contactID: 1, phase: .begin, position: Vec2(5, 5), time: 0, arrival: 0)]))
        let first = table.liveIDs
        // 1,000 app connections, each one touch that begins and ends.
        for k in 0..<1000 {
            let o = InputOrigin(kind: .json, device: "app-\(k)")
            let t = 0.01 * Double(k + 1)
            table.apply(Frame(number: UInt64(2 * k + 2), time: t, contacts: [ContactUpdate(origin: o, contactID: 1, phase: .begin, position: Vec2(50, 50), time: t, arrival: t)]))
            table.apply(Frame(number: UInt64(2 * k + 3), time: t + 0.005, contacts: [ContactUpdate(origin: o, contactID: 1, phase: .end, position: Vec2(50, 50), time: t + 0.005, arrival: t + 0.005)]))
        }
        #expect(table.knownOriginCount <= TraceTable.maxIdleOrigins, "\(table.knownOriginCount) origins known")
        // The contact that stayed down across every forgetting is still the same trace.
        table.apply(Frame(number: 3000, time: 20, contacts: [ContactUpdate(origin: stays, contactID: 1, phase: .move, position: Vec2(6, 5), time: 20, arrival: 20)]))
        #expect(table.liveIDs == first)
        #expect(table.entries(first[0]).last?.position == Vec2(6, 5))
    }
}
