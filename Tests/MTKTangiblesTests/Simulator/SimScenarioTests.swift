// Scenarios as data: JSON round trips, located errors, and each built-in shows its case.

import Foundation
import Testing
@testable import MTKTangibles
@testable import MTKSimulator

@Suite("Simulator scenarios")
struct SimScenarioTests {
    /// Runs a scenario to its end; returns the runner and everything that arrived.
    static func run(_ name: String) throws -> (ScenarioRunner, SimOutput) {
        var r = try ScenarioRunner(try #require(BuiltInScenarios.named(name)))
        let out = r.advance(to: r.scenario.duration)
        return (r, out)
    }

    static func begins(_ out: SimOutput, _ truth: SimTruth, tangible: TangibleID) -> [ContactUpdate] {
        out.contacts.filter { c in
            guard c.phase == .begin, case .marker(tangible, _)? = truth.contacts[c.contactID]?.maker else { return false }
            return true
        }
    }

    @Test("every built-in scenario round-trips through JSON and validates", arguments: BuiltInScenarios.names)
    func roundTrip(name: String) throws {
        let s = try #require(BuiltInScenarios.named(name))
        #expect(s.name == name)
        let back = try Scenario.decode(s.encoded())
        #expect(back == s)
    }

    @Test("every built-in scenario ends with all contacts ended (lifted, fingers up)", arguments: BuiltInScenarios.names)
    func endsClean(name: String) throws {
        let (r, out) = try Self.run(name)
        let begun = Set(out.contacts.filter { $0.phase == .begin }.map(\.contactID))
        let ended = Set(out.contacts.filter { $0.phase == .end }.map(\.contactID))
        #expect(!begun.isEmpty)
        #expect(begun == ended)
        #expect(r.world.definitions.allSatisfy { !r.world.isOnSurface($0.id) })
    }

    @Test("an unknown name gives nil")
    func unknownName() { #expect(BuiltInScenarios.named("nope") == nil) }

    @Test("the demo has 2–3 PERCs with scalene, obtuse and near-equilateral shapes, a PUC, fingers, and loops cleanly")
    func demo() throws {
        let s = try #require(BuiltInScenarios.named("demo"))
        #expect(s.loop == true)
        #expect((30...60).contains(s.duration))
        let defs = s.tangibles.map(\.definition)
        #expect((2...3).contains(defs.filter { $0.kind == .perc }.count))
        #expect(defs.contains { $0.kind == .puc })
        let kinds = Set(defs.map { Self.shape($0.markers) })
        #expect(kinds.isSuperset(of: ["scalene", "obtuse", "near-equilateral", "right-isosceles"]))
        var r = try ScenarioRunner(s)
        let first = r.advance(to: s.duration - 0.01)
        let second = r.advance(to: 2 * s.duration - 0.01)
        #expect(r.cycle == 1)
        #expect(first.contacts.contains { if case .finger? = r.world.truth.contacts[$0.contactID]?.maker { true } else { false } })
        // The second cycle does the same things (different noise): same number of field changes.
        let fields = { (o: SimOutput) in o.sensorEvents.filter { $0.kind == .field }.map { "\($0.tangible):\($0.value)" } }
        #expect(fields(first).filter { $0.hasSuffix(":1") }.count == fields(second).filter { $0.hasSuffix(":1") }.count)
    }

    static func shape(_ m: [Vec2]) -> String {
        let sides = [m[0].distance(to: m[1]), m[1].distance(to: m[2]), m[2].distance(to: m[0])].sorted()
        if sides[2] - sides[0] < 2 { return "near-equilateral" }
        let right = abs(sides[0] * sides[0] + sides[1] * sides[1] - sides[2] * sides[2]) < 1
        if right && abs(sides[0] - sides[1]) < 0.5 { return "right-isosceles" }
        if sides[0] * sides[0] + sides[1] * sides[1] < sides[2] * sides[2] { return "obtuse" }
        return "scalene"
    }

    @Test("hypotenuse and leg tuples: exactly those two markers touch at placement")
    func tuples() throws {
        for (name, pair, length) in [("hypotenuse-tuple", [1, 2], 30 * 2.0.squareRoot()), ("leg-tuple", [0, 1], 30.0)] {
            let (r, out) = try Self.run(name)
            let b = Self.begins(out, r.world.truth, tangible: 1)
            #expect(b.count == 2, "\(name)")
            let markers = b.compactMap { c -> Int? in
                if case .marker(_, let m)? = r.world.truth.contacts[c.contactID]?.maker { return m } else { return nil }
            }
            #expect(markers.sorted() == pair)
            #expect(abs(b[0].position.distance(to: b[1].position) - length) < 5)
        }
    }

    @Test("one trace at placement: one contact until the PERC is moved, then all three")
    func oneTrace() throws {
        let (r, out) = try Self.run("one-trace-at-placement")
        let b = Self.begins(out, r.world.truth, tangible: 1)
        #expect(b.filter { $0.arrival < 2.5 }.count == 1)
        #expect(b.filter { $0.arrival >= 2.5 }.count == 2)
        #expect(r.world.truth.placements[0].reducedBy == .scenario)
    }

    @Test("two traces at placement: the scanline case at 0°")
    func twoTraces() throws {
        let (r, out) = try Self.run("two-traces-at-placement")
        #expect(Self.begins(out, r.world.truth, tangible: 1).filter { $0.arrival < 3 }.count == 2)
        #expect(r.world.truth.placements[0].reducedBy == .scanline)
    }

    @Test("two PERCs together: both field-on notifications and six marker contacts within 0.6 s")
    func twoTogether() throws {
        let (r, out) = try Self.run("two-percs-together")
        #expect(out.sensorEvents.filter { $0.kind == .field && $0.value == 1 }.count == 2)
        let early = out.contacts.filter { $0.phase == .begin && $0.arrival < 1.2 }
        #expect(early.count == 6)
        #expect(r.world.truth.placements.count == 2)
    }

    @Test("fingers forming a fitting triple: three finger contacts in the PERC's pattern")
    func fingersTriple() throws {
        let (r, out) = try Self.run("fingers-triple-nearby")
        let fingers = out.contacts.filter { c in
            c.phase == .begin && { if case .finger? = r.world.truth.contacts[c.contactID]?.maker { true } else { false } }()
        }
        #expect(fingers.count == 3)
        let d = fingers.map(\.position)
        let sides = [d[0].distance(to: d[1]), d[1].distance(to: d[2]), d[2].distance(to: d[0])].sorted()
        #expect(abs(sides[0] - 30) < 3 && abs(sides[1] - 30) < 3 && abs(sides[2] - 42.4) < 3)
    }

    @Test("flicker and recovery: the forced drop-outs end contacts and new ones follow")
    func flickerRecovery() throws {
        let (r, out) = try Self.run("flicker-recovery")
        let b = Self.begins(out, r.world.truth, tangible: 1)
        #expect(b.count == 5)
        let ends = out.contacts.filter { $0.phase == .end && $0.time < 5 }
        #expect(ends.count == 2)
    }

    @Test("ghost touch while moving: marker 1's contact freezes, a new one follows the PERC")
    func ghost() throws {
        let (r, out) = try Self.run("ghost-touch-moving")
        let ghosts = r.world.truth.contacts.values.filter { $0.ghostSince != nil }
        #expect(ghosts.count == 1)
        #expect(ghosts.first?.maker == .marker(tangible: 1, index: 1))
        let last = out.contacts.last { $0.contactID == ghosts.first?.id && $0.phase != .end }
        #expect(last.map { $0.position.distance(to: r.world.truth.placements[0].pose.position) < 40 } == true)
        #expect(Self.begins(out, r.world.truth, tangible: 1).count == 4)
    }

    @Test("filtered → resting → lift: touches end at 5.5 s, the field stays on until the lift at 12 s")
    func filtered() throws {
        let (_, out) = try Self.run("filtered-resting-lift")
        let ends = out.contacts.filter { $0.phase == .end }
        #expect(ends.count == 3)
        #expect(ends.allSatisfy { abs($0.time - 5.5) < 0.02 })
        let fieldOff = out.sensorEvents.first { $0.kind == .field && $0.value == 0 && $0.arrival > 1 }
        #expect(fieldOff.map { $0.arrival > 12 } == true)
    }

    @Test("lift during recognition: field on, then off within about a second")
    func liftDuring() throws {
        let (_, out) = try Self.run("lift-during-recognition")
        let field = out.sensorEvents.filter { $0.kind == .field && $0.arrival > 0.3 }.map(\.value)
        #expect(field == [1, 0])
    }

    @Test("link loss: link down reported at 4 s, back at 6 s with field on")
    func linkLoss() throws {
        let (_, out) = try Self.run("link-loss")
        let link = out.sensorEvents.filter { $0.kind == .link }
        #expect(link.map(\.value) == [1, 0, 1])
        #expect(abs(link[1].arrival - 4) < 0.01)
        #expect(out.sensorEvents.contains { $0.kind == .field && $0.value == 1 && $0.arrival > 6 && $0.arrival < 6.1 })
    }

    @Test("a runner is deterministic and cuts frames in order at 120 Hz")
    func frames() throws {
        let s = try #require(BuiltInScenarios.named("single-placement"))
        var a = try ScenarioRunner(s), b = try ScenarioRunner(s), c = try ScenarioRunner(s, seed: 99)
        var fa: [Frame] = [], fb: [Frame] = [], fc: [Frame] = []
        while !a.isFinished { fa.append(a.nextFrame()); fb.append(b.nextFrame()); fc.append(c.nextFrame()) }
        #expect(fa == fb)
        #expect(fa != fc)
        #expect(fa.count == 481)
        for (prev, f) in zip(fa, fa.dropFirst()) {
            #expect(abs(f.time - prev.time - 1.0 / 120) < 1e-9)
            #expect(f.contacts.allSatisfy { $0.arrival <= f.time && $0.arrival > prev.time })
        }
    }

    /// The example of docs/simulator.md.
    static let documented = #"""
{
  "name": "my-scenario",
  "description": "A PERC and a finger triple nearby",
  "seed": 7,
  "surface": [800, 500],
  "background": "black",
  "duration": 6,
  "loop": false,
  "hardware": { "lightMissProbability": 0.05, "flickerRate": 0 },
  "tangibles": [
    { "id": 1, "name": "PERC A" },
    { "id": 2, "name": "PERC scalene", "markers": [[0, 0], [45, 0], [15, 25]],
      "lightSensorOffset": [5, 0], "profile": "mtk-serial", "linked": true },
    { "id": 3, "name": "PUC", "kind": "puc", "markers": [[0, 0], [52, 0], [12, 18]] }
  ],
  "steps": [
    { "at": 0.5, "place": { "tangible": 1, "position": [300, 200], "angle": 30 } },
    { "at": 0.6, "fingersTriple": { "fingers": [1, 2, 3], "like": 1, "position": [450, 200], "angle": 75 } },
    { "at": 1.0, "place": { "tangible": 2, "position": [550, 300], "angle": 10, "touches": [0, 1] } },
    { "at": 2.0, "move": { "tangible": 1, "to": [400, 260], "via": [[350, 150]], "turn": 90, "speed": 80 } },
    { "at": 2.5, "touch": { "tangible": 2, "point": [0, 0], "duration": 1.5 } },
    { "at": 3.0, "fingerUp": { "finger": 1 } },
    { "at": 3.0, "hardware": { "flickerRate": 0.5 } },
    { "at": 4.0, "linkLoss": { "tangible": 2 } },
    { "at": 5.5, "lift": { "tangible": 1 } }
  ]
}
"""#

    @Test("the example scenario of docs/simulator.md decodes and runs")
    func documentedExample() throws {
        let s = try Scenario.decode(Data(Self.documented.utf8))
        #expect(s.steps.count == 9)
        var r = try ScenarioRunner(s)
        let out = r.advance(to: s.duration)
        #expect(out.sensorEvents.contains { $0.tangible == 2 && $0.kind == .link && $0.value == 0 && abs($0.arrival - 6) < 1e-9 })
        #expect(r.world.truth.placements.count == 2)
        #expect(out.contacts.filter { $0.phase == .begin }.count >= 8)
    }

    // MARK: Errors

    static func error(_ json: String) -> ScenarioError? {
        do { _ = try Scenario.decode(Data(json.utf8)); return nil } catch { return error }
    }

    static let head = #""name": "t", "seed": 1, "duration": 5, "tangibles": [{"id": 1, "name": "A"}]"#

    @Test("bad scenario JSON gives an error that says where", arguments: [
        (#"{"name": "t", "seed": 1, "duration": 5, "tangibles": [{"id": 1, "name": "A"}], "steps": [{"at": 1, "plase": {"tangible": 1}}]}"#,
         "steps[0].plase", "unknown action 'plase'"),
        (#"{"name": "t", "seed": 1, "duration": 5, "tangibles": [{"id": 1, "name": "A"}], "steps": [{"at": 1, "place": {"tangible": 1, "position": [1, 2], "angle": "thirty"}}]}"#,
         "steps[0].place.angle", "expected a number"),
        (#"{"name": "t", "seed": 1, "duration": 5, "tangibles": [{"id": 1, "name": "A"}], "steps": [{"at": 1, "place": {"tangible": 7, "position": [1, 2]}}]}"#,
         "steps[0].place.tangible", "no tangible with id 7"),
        (#"{"name": "t", "seed": 1, "duration": 5, "tangibles": [{"id": 1, "name": "A"}], "steps": [{"at": 1, "place": {"tangible": 1, "position": [1]}}]}"#,
         "steps[0].place.position", "[x, y]"),
        (#"{"name": "t", "seed": 1, "duration": 5, "tangibles": [{"id": 1, "name": "A"}], "steps": [{"at": 1, "lift": {"tangible": 1}}, {"at": 0.5, "lift": {"tangible": 1}}]}"#,
         "steps[1].at", "time order"),
        (#"{"name": "t", "seed": 1, "duration": 5, "tangibles": [{"id": 1, "name": "A"}], "steps": [{"at": 1, "move": {"tangible": 1, "to": [3, 4]}}]}"#,
         "steps[0].move", "needs \"speed\""),
        (#"{"name": "t", "seed": 1, "duration": 5, "hardware": {"lightMiss": 0.1}, "tangibles": [], "steps": []}"#,
         "hardware", "unknown hardware setting 'lightMiss'"),
        (#"{"name": "t", "seed": 1, "duration": 5, "hardware": {"lightMissProbability": 2}, "tangibles": [], "steps": []}"#,
         "hardware.lightMissProbability", "probability"),
        (#"{"name": "t", "seed": 1, "tangibles": [], "steps": []}"#, "duration", "missing"),
        (#"{"name": "t", "seed": 1, "duration": 5, "tangibles": [], "steps": [}"#, "", "not valid JSON"),
    ])
    func badJSON(json: String, path: String, message: String) {
        let e = Self.error(json)
        #expect(e?.path == path, "\(String(describing: e))")
        #expect(e?.message.contains(message) == true, "\(String(describing: e))")
        #expect(path.isEmpty || e?.description.contains(path) == true)
    }
    /// Played as `serve` cuts frames (`.serve` timing): a sensor notification ends a frame within
    /// the step of its arrival, between the fixed frames, which all stay; the world plays the
    /// same (every notification arrives once, as with fixed frames only).
    @Test("with an event step a notification cuts a frame within a step of its arrival")
    func anEventStepCutsFramesAtNotifications() throws {
        let s = try #require(BuiltInScenarios.named("single-placement"))
        var fixed = try ScenarioRunner(s), events = try ScenarioRunner(s, timing: .serve)
        var fixedFrames: [Frame] = [], eventFrames: [Frame] = []
        while !fixed.isFinished { fixedFrames.append(fixed.nextFrame()) }
        while !events.isFinished { eventFrames.append(events.nextFrame()) }
        let between = eventFrames.filter { f in abs(f.time * 120 - (f.time * 120).rounded()) > 1e-6 }
        #expect(!between.isEmpty, "no notification fell between two fixed frames")
        for f in between {
            #expect(!f.sensorEvents.isEmpty, "a frame between the fixed ones at \(f.time) carries no notification")
            for e in f.sensorEvents { #expect(f.time >= e.arrival && f.time - e.arrival <= ScenarioRunner.serveEventStep + 1e-9) }
        }
        #expect(Set(fixedFrames.map(\.time)).isSubset(of: Set(eventFrames.map(\.time))))
        #expect(eventFrames.flatMap(\.sensorEvents) == fixedFrames.flatMap(\.sensorEvents))
        #expect(zip(eventFrames, eventFrames.dropFirst()).allSatisfy { $0.time < $1.time })
    }
}

