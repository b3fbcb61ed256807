// A PERC put down on one marker touch whose turn light cannot resolve: the engine reports it `placed`.
import Foundation
import Testing
@testable import MTKTangibles

@Suite struct PlacedTests {
    let origin = InputOrigin(kind: .simulator, device: "p")
    /// The standard PERC: its sensor is 18.0 mm from markers 0 and 1.
    let perc = TangibleDefinition.standardPerc(id: 1, name: "P")
    let pose = Pose(position: Vec2(300, 200), angle: 0.4)

    struct Run {
        var engine: Engine
        var n: UInt64 = 0
        var out: EngineOutput?
        var states: [TangibleStateName] = []
        var events: [TangibleEvent] = []
    }

    /// Steps at 120 Hz until `until`, with marker 0 touching from 0.5 s (the PERC's field on
    /// then) and, from `second`, marker 1 too; `answer` answers the PERC's checks.
    func run(config: EngineConfig = EngineConfig(), until: Seconds, second: Seconds? = nil, touchEnds: Seconds? = nil,
             slide: Vec2 = .zero, finger: (at: Vec2, from: Seconds)? = nil,
             answer: (VerificationNeed) -> VerificationOutcome.Result?) -> Run {
        var r = Run(engine: Engine(config: config, definitions: [perc]))
        var outcomes: [VerificationOutcome] = []
        var t = 0.0
        var asked: Set<UInt64> = []
        while t < until {
            r.n += 1; t = Double(r.n) / 120
            var contacts: [ContactUpdate] = []
            var events: [SensorEvent] = []
            if r.n == 60 { events = [SensorEvent(tangible: 1, kind: .link, value: 1, arrival: t), SensorEvent(tangible: 1, kind: .field, value: 1, arrival: t)] }
            // After 3 s the PERC slides by `slide` over 0.5 s.
            let shift = slide * min(max((t - 3) / 0.5, 0), 1)
            let p = Pose(position: pose.position + shift, angle: pose.angle)
            if r.n >= 61, touchEnds.map({ t < $0 }) ?? true {
                contacts.append(ContactUpdate(origin: origin, contactID: 1, phase: r.n == 61 ? .begin : .move, position: p.apply(perc.markers[0]), time: t, arrival: t))
            } else if let e = touchEnds, t - 1.0 / 120 < e {
                contacts.append(ContactUpdate(origin: origin, contactID: 1, phase: .end, position: p.apply(perc.markers[0]), time: t, arrival: t))
            }
            if let s = second, t >= s {
                contacts.append(ContactUpdate(origin: origin, contactID: 2, phase: t - 1.0 / 120 < s ? .begin : .move, position: p.apply(perc.markers[1]), time: t, arrival: t))
            }
            if let f = finger, t >= f.from {
                contacts.append(ContactUpdate(origin: origin, contactID: 9, phase: t - 1.0 / 120 < f.from ? .begin : .move, position: f.at, time: t, arrival: t))
            }
            let out = r.engine.step(Frame(number: r.n, time: t, contacts: contacts, sensorEvents: events, drawing: true), outcomes: outcomes)
            outcomes = []
            // Answer each need once, a few frames after it was published (as light would).
            for need in out.needs where !asked.contains(need.request) {
                if let result = answer(need) {
                    asked.insert(need.request)
                    outcomes.append(VerificationOutcome(tangible: 1, request: need.request, result: result, time: t))
                }
            }
            if let s = out.tangible(1)?.state, r.states.last != s { r.states.append(s) }
            r.events += out.events.map(\.event)
            r.out = out
        }
        return r
    }

    /// Light answers as the truth says: the hypothesis whose sensor lies where the PERC's is.
    func truthful(_ need: VerificationNeed) -> VerificationOutcome.Result? {
        guard let offset = perc.lightSensorOffset else { return nil }
        let sensor = pose.apply(offset)
        guard let best = need.hypotheses.min(by: { $0.sensorPosition.distance(to: sensor) < $1.sensorPosition.distance(to: sensor) }) else { return nil }
        return best.sensorPosition.distance(to: sensor) < 1.5 ? .confirmed(hypothesis: best.id) : .rejected
    }

    @Test func oneMarkerTouchIsPlacedWithTheTouchAndTheSensorAndNoPose() throws {
        let r = run(until: 2, answer: truthful)
        let t = try #require(r.out?.tangible(1))
        #expect(r.states == [.notInRange, .onSurface, .placed], "\(r.states) \(r.events)")
        #expect(t.pose == nil && t.provenance == nil, "placed: no pose, no provenance")
        let p = try #require(t.placement)
        #expect(p.touchPosition.distance(to: pose.apply(perc.markers[0])) < 0.01)
        #expect(p.sensor.distance(to: pose.apply(perc.lightSensorOffset!)) < 1.5)
        #expect(p.poses == 2, "marker 0 or marker 1 on the touch")
        #expect(t.traces.count == 1, "it holds its touch")
        #expect(r.out?.freeTraces.isEmpty == true, "its touch is no finger for apps")
        #expect(r.events.contains(.transition(from: .onSurface, to: .placed, reason: .placedUnresolved)), "\(r.events)")
        #expect(r.events.contains { if case .locateAmbiguous(_, 2) = $0 { true } else { false } })
    }

    @Test func aSecondMarkerTouchMakesItTrackedWithItsTruePose() throws {
        let r = run(until: 3, second: 2.2, answer: truthful)
        #expect(r.states == [.notInRange, .onSurface, .placed, .tracked], "\(r.states)")
        let t = try #require(r.out?.tangible(1))
        let reported = try #require(t.pose)
        #expect(reported.position.distance(to: pose.position) < 0.5)
        #expect(Pose.angleDistance(reported.angle, pose.angle) < 0.02)
        #expect(t.placement == nil)
        #expect(t.traces.count == 2)
    }

    @Test func theTouchEndingEndsThePlacement() throws {
        let r = run(until: 2.5, touchEnds: 2.2, answer: truthful)
        #expect(r.states == [.notInRange, .onSurface, .placed, .onSurface], "\(r.states)")
        #expect(r.out?.tangible(1)?.placement == nil)
    }

    @Test func whileTheTouchMovesBothPointsMoveWithIt() throws {
        let slide = Vec2(40, -10)
        let r = run(until: 3.6, slide: slide, answer: truthful)
        let p = try #require(r.out?.tangible(1)?.placement, "\(r.states)")
        #expect(p.touchPosition.distance(to: pose.apply(perc.markers[0]) + slide) < 0.01)
        #expect(p.sensor.distance(to: pose.apply(perc.lightSensorOffset!) + slide) < 1.5)
    }

    /// A finger as far from the sensor as marker 0 is (18.0 mm), away from where its other
    /// markers would be: it could be the touch the PERC stands on, so the placement ends.
    @Test func aTouchThatCouldBeItsMarkerInsteadEndsThePlacement() throws {
        let sensor = pose.apply(perc.lightSensorOffset!)
        let touch = pose.apply(perc.markers[0])
        // On the circle of radius 18.03 mm around the sensor, opposite the touch.
        let away = sensor + (sensor - touch)
        #expect(abs(away.distance(to: sensor) - 18.03) < 0.01)
        let r = run(until: 2.6, finger: (away, 2.3), answer: truthful)
        #expect(r.states == [.notInRange, .onSurface, .placed, .onSurface], "\(r.states)")
        #expect(r.events.contains(.transition(from: .placed, to: .onSurface, reason: .placementContested)))
        // A second marker of its own is no rival: it is tracked (see above), not withdrawn.
        let own = run(until: 3, second: 2.2, answer: truthful)
        #expect(!own.events.contains { if case .transition(_, _, .placementContested) = $0 { true } else { false } })
    }

    @Test func offItStaysOnSurfaceAsRecordingsFromBeforeDid() throws {
        var config = EngineConfig()
        config.reportUnresolvedPlacements = false
        let r = run(config: config, until: 2, answer: truthful)
        #expect(r.states == [.notInRange, .onSurface], "\(r.states)")
        #expect(r.out?.tangible(1)?.placement == nil)
        // A recording's engine settings from before the setting existed decode it as off.
        let old = try JSONDecoder().decode(EngineConfig.self, from: Data(#"{"timeWindow": 0.15}"#.utf8))
        #expect(old.reportUnresolvedPlacements == false)
        #expect(EngineConfig().reportUnresolvedPlacements == true)
    }
}
