// The simulated world: placements, contacts, field events, determinism.

import Testing
@testable import MTKTangibles
@testable import MTKSimulator

@Suite("SimWorld")
struct SimWorldTests {
    static func run(seed: UInt64, model: HardwareModel = HardwareModel()) -> (SimWorld, SimOutput) {
        var w = SimWorld(seed: seed, model: model)
        w.add(.standardPerc(id: 1, name: "A"))
        var out = w.advance(to: 0.5)
        w.place(1, at: Pose(position: Vec2(200, 200), angle: 0.5))
        out.append(w.advance(to: 2))
        w.move(1, through: [Vec2(300, 250)], turn: 1, duration: 1)
        out.append(w.advance(to: 3.5))
        w.lift(1)
        out.append(w.advance(to: 4))
        return (w, out)
    }

    /// Before: a move asked for after the tangible had been still since its last motion
    /// ended interpolated from the end of that motion, so at the move's start it jumped most
    /// of the way (the demo's near-equilateral PERC: 137 mm at 30 s, its touches with it).
    @Test("a move after a rest starts where the tangible rests, at the time it is asked for")
    func moveAfterARest() {
        var w = SimWorld(seed: 3, model: HardwareModel())
        w.add(.standardPerc(id: 1, name: "A"))
        _ = w.advance(to: 0.5)
        w.place(1, at: Pose(position: Vec2(200, 200), angle: 0))
        _ = w.advance(to: 1)
        w.move(1, through: [], turn: 1, duration: 1)   // a rotation in place, ends at 2 s
        _ = w.advance(to: 10)
        w.move(1, through: [Vec2(300, 200)], turn: 0, duration: 2)
        #expect(w.truePose(of: 1)!.position.distance(to: Vec2(200, 200)) < 1e-9, "still where it rested at the move's start")
        _ = w.advance(to: 11)
        #expect(w.truePose(of: 1)!.position.distance(to: Vec2(250, 200)) < 1e-6, "half way after half the time")
        _ = w.advance(to: 12)
        #expect(w.truePose(of: 1)!.position.distance(to: Vec2(300, 200)) < 1e-6)
    }

    @Test("a placement makes three marker contacts near the true markers and a field-on event")
    func placement() {
        let model = { var m = HardwareModel(); m.singleTouchProbability = 0; return m }()
        let (w, out) = Self.run(seed: 7, model: model)
        let begins = out.contacts.filter { $0.phase == .begin }
        #expect(begins.count >= 3)
        let fieldOn = out.sensorEvents.filter { $0.kind == .field && $0.value == 1 }
        #expect(fieldOn.count == 1)
        let p = w.truth.placements[0]
        #expect(p.fieldOnArrival == fieldOn.first?.arrival)
        let def = TangibleDefinition.standardPerc(id: 1, name: "A")
        for c in begins.prefix(3) {
            guard case .marker(1, let m)? = w.truth.contacts[c.contactID]?.maker else { Issue.record("not a marker"); continue }
            #expect(c.position.distance(to: p.pose.apply(def.markers[m])) < 4)
            #expect(c.origin.kind == .simulator)
        }
        // Every contact that began has ended after the lift.
        let ended = Set(out.contacts.filter { $0.phase == .end }.map(\.contactID))
        #expect(Set(begins.map(\.contactID)).isSubset(of: ended))
        #expect(out.sensorEvents.contains { $0.kind == .field && $0.value == 0 })
        // Arrival order.
        #expect(out.contacts.map(\.arrival) == out.contacts.map(\.arrival).sorted())
    }

    @Test("the same seed gives identical output; another seed does not")
    func determinism() {
        let a = Self.run(seed: 42).1, b = Self.run(seed: 42).1, c = Self.run(seed: 43).1
        #expect(a == b)
        #expect(a != c)
    }
}
