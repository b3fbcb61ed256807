// Touch-controller misbehaviour at its configured rates: jitter, filtering, flicker, ghost touches.

import Testing
@testable import MTKTangibles
@testable import MTKSimulator

@Suite("Simulator touch model")
struct SimTouchModelTests {
    static let quietModel = SimTest.model { $0.singleTouchProbability = 0; $0.scanlineTwoTouchProbability = 0 }

    @Test("marker position jitter is Gaussian with σ 0.7 mm ± 0.05 around the true marker")
    func jitter() {
        var w = SimWorld(seed: 200, model: Self.quietModel)
        let def = TangibleDefinition.standardPerc(id: 1, name: "A")
        w.add(def)
        let pose = Pose(position: Vec2(300, 200), angle: 0.7)
        w.place(1, at: pose)
        let out = w.advance(to: 4)
        var dx: [Double] = [], dy: [Double] = []
        for c in out.contacts where c.phase != .end {
            guard case .marker(1, let m)? = w.truth.contacts[c.contactID]?.maker else { continue }
            let d = c.position - pose.apply(def.markers[m])
            dx.append(d.x); dy.append(d.y)
        }
        #expect(dx.count > 1_000)
        #expect(abs(SimTest.standardDeviation(dx) - 0.7) < 0.05)
        #expect(abs(SimTest.standardDeviation(dy) - 0.7) < 0.05)
        #expect(abs(SimTest.mean(dx)) < 0.1)
    }

    @Test("a still, untouched tangible's touches are filtered after a uniform 5–30 s (400 placements)")
    func filtering() {
        // 30 samples/s keeps this test quick; filtering does not depend on the sample rate.
        var w = SimWorld(seed: 201, model: { var m = Self.quietModel; m.touchSampleRate = 30; return m }())
        w.add(.standardPerc(id: 1, name: "A"))
        var delays: [Double] = []
        for _ in 0..<400 {
            w.place(1, at: Pose(position: Vec2(300, 200), angle: 1))
            let placed = w.now
            let out = w.advance(to: placed + 32)
            let ends = out.contacts.filter { $0.phase == .end }
            #expect(ends.count == 3)
            #expect(w.isOnSurface(1))
            if let first = ends.first { delays.append(first.time - placed) }
            // All three at once.
            #expect(Set(ends.map(\.time)).count == 1)
            w.lift(1)
            _ = w.advance(to: w.now + 0.5)
        }
        #expect(delays.allSatisfy { $0 >= 5 && $0 <= 30.1 })
        #expect(abs(SimTest.mean(delays) - 17.5) < 1.2, "mean \(SimTest.mean(delays))")
        #expect(abs(SimTest.standardDeviation(delays) - 25 / 12.squareRoot()) < 0.8)
    }

    @Test("filtered touches come back when the tangible is touched")
    func touchedAfterFiltering() {
        var w = SimWorld(seed: 202, model: { var m = Self.quietModel; m.filterDelayMin = 5; m.filterDelayMax = 5; return m }())
        w.add(.standardPerc(id: 1, name: "A"))
        w.place(1, at: Pose(position: Vec2(300, 200), angle: 1))
        _ = w.advance(to: 7)
        w.touch(1)
        let out = w.advance(to: 7.5)
        #expect(out.contacts.filter { $0.phase == .begin }.count == 3)
    }

    /// Moves tangible 1 around a circle for `seconds`, returning everything that arrived.
    static func circling(_ w: inout SimWorld, seconds: Double) -> SimOutput {
        let centre = Vec2(400, 250)
        var out = SimOutput()
        w.place(1, at: Pose(position: centre + Vec2(100, 0), angle: 1))
        out.append(w.advance(to: w.now + 1))
        let laps = Int(seconds / 4)
        let points = (1...(laps * 16)).map { centre + Vec2(100, 0).rotated(by: Double($0) * Double.pi / 8) }
        w.move(1, through: points, turn: 0, duration: seconds)
        out.append(w.advance(to: w.now + seconds))
        return out
    }

    @Test("flicker: each marker touch drops out at the configured rate while moving, for 1–10 frames")
    func flicker() {
        var w = SimWorld(seed: 203, model: { var m = Self.quietModel; m.flickerRate = 1; m.ghostTouchProbability = 0; return m }())
        w.add(.standardPerc(id: 1, name: "A"))
        let out = Self.circling(&w, seconds: 120)
        // Drop-outs while moving: ends of marker contacts during the movement.
        let ends = out.contacts.filter { $0.phase == .end && $0.time > 1.6 }
        let expected = 1.0 * 3 * 120
        #expect(abs(Double(ends.count) - expected) < 0.15 * expected, "\(ends.count) drop-outs, expected about \(expected)")
        // Gap lengths: frames missing between an end and the marker's next contact.
        var gaps: [Int] = []
        let begins = out.contacts.filter { $0.phase == .begin }
        for e in ends {
            guard case .marker(_, let m)? = w.truth.contacts[e.contactID]?.maker else { continue }
            if let next = begins.first(where: { $0.time > e.time && w.truth.contacts[$0.contactID]?.maker == .marker(tangible: 1, index: m) }) {
                gaps.append(Int(((next.time - e.time) * 120).rounded()) - 1)
            }
        }
        #expect(gaps.allSatisfy { (1...10).contains($0) }, "gaps \(Set(gaps).sorted())")
        #expect(Set(gaps) == Set(1...10))
        #expect(abs(SimTest.mean(gaps.map(Double.init)) - 5.5) < 0.5)
    }

    @Test("no flicker while the tangible stands still")
    func noFlickerWhenStill() {
        var w = SimWorld(seed: 204, model: { var m = Self.quietModel; m.flickerRate = 5; m.filterDelayMin = 60; m.filterDelayMax = 60; return m }())
        w.add(.standardPerc(id: 1, name: "A"))
        w.place(1, at: Pose(position: Vec2(300, 200), angle: 1))
        let out = w.advance(to: 20)
        #expect(out.contacts.filter { $0.phase == .end }.isEmpty)
    }

    @Test("ghost touches: the configured share of marker touches freeze for 2–5 s when the tangible starts moving")
    func ghostTouches() {
        var w = SimWorld(seed: 205, model: { var m = Self.quietModel; m.ghostTouchProbability = 0.1; m.flickerRate = 0; return m }())
        w.add(.standardPerc(id: 1, name: "A"))
        let starts = 1_000
        w.place(1, at: Pose(position: Vec2(300, 200), angle: 1))
        _ = w.advance(to: 1)
        var out = SimOutput()
        for i in 0..<starts {
            let x = i % 2 == 0 ? 340.0 : 300.0
            w.move(1, through: [Vec2(x, 200)], duration: 0.2)
            out.append(w.advance(to: w.now + 0.3))
        }
        out.append(w.advance(to: w.now + 6))
        let ghosts = w.truth.contacts.values.filter { $0.ghostSince != nil }
        let expected = 0.1 * 3 * Double(starts)
        #expect(abs(Double(ghosts.count) - expected) < 0.15 * expected, "\(ghosts.count) ghosts")
        let updates = Dictionary(grouping: out.contacts, by: \.contactID)
        for g in ghosts {
            let life = (g.ended ?? .infinity) - g.ghostSince!
            #expect(life >= 2 && life <= 5.05, "ghost lived \(life)")
            // Frozen: its updates after freezing stay within jitter of one point.
            let positions = (updates[g.id] ?? []).filter { $0.arrival >= g.ghostSince! }.map(\.position)
            let spread = positions.map { $0.distance(to: positions[0]) }.max() ?? 0
            #expect(spread < 8)
        }
    }

    @Test("a finger resting on a tangible shifts its marker touches towards the finger")
    func touchShift() {
        var w = SimWorld(seed: 206, model: { var m = Self.quietModel; m.markerJitter = 0; return m }())
        let def = TangibleDefinition.standardPerc(id: 1, name: "A")
        w.add(def)
        let pose = Pose(position: Vec2(300, 200), angle: 0)
        w.place(1, at: pose)
        _ = w.advance(to: 1)
        w.touch(1, at: .zero)
        let out = w.advance(to: 1.2)
        for c in out.contacts.suffix(3) {
            guard case .marker(1, let m)? = w.truth.contacts[c.contactID]?.maker else { continue }
            let trueAt = pose.apply(def.markers[m])
            #expect(abs(c.position.distance(to: trueAt) - 1.5) < 1e-9)
            #expect(c.position.distance(to: pose.position) < trueAt.distance(to: pose.position))
        }
    }
}
