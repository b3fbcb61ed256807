// Random placement cases for the accuracy benchmark: seeded, valid, with ground truth.

import Testing
@testable import MTKTangibles
@testable import MTKSimulator

@Suite("Simulator placement generator")
struct SimPlacementGeneratorTests {
    @Test("the same seed gives the same cases; another seed different ones")
    func determinism() {
        #expect(PlacementGenerator.cases(50, seed: 1) == PlacementGenerator.cases(50, seed: 1))
        #expect(PlacementGenerator.cases(50, seed: 1) != PlacementGenerator.cases(50, seed: 2))
    }

    @Test("each case validates, places PERC 1 at the case pose, and its truth names the markers' contacts")
    func casesRun() throws {
        var standard = 0, withOther = 0, withFingers = 0
        for c in PlacementGenerator.cases(200, seed: 7) {
            try c.scenario.validate()
            var r = try ScenarioRunner(c.scenario)
            let out = r.advance(to: c.scenario.duration)
            let p = try #require(r.world.truth.placement(of: 1))
            #expect(abs(p.placedAt - c.placedAt) < 1e-12)
            #expect(p.pose.position == c.pose.position)
            #expect(Pose.angleDistance(p.pose.angle, c.pose.angle) < 1e-9)
            #expect(r.world.truePose(of: 1).map { $0.position.distance(to: c.pose.position) < 1e-9 } == true)
            let markers = out.contacts.filter { $0.phase == .begin && r.world.truth.contacts[$0.contactID]?.maker == .marker(tangible: 1, index: 0) }
            #expect(markers.count <= 1)
            if p.touchingMarkers.contains(0) { #expect(markers.count == 1) }
            let surface = c.scenario.surface!.vec
            #expect(c.pose.position.x > 0 && c.pose.position.x < surface.x && c.pose.position.y > 0 && c.pose.position.y < surface.y)
            if c.scenario.tangibles[0].markers == BuiltInScenarios.standardMarkers { standard += 1 }
            if c.scenario.tangibles.count == 2 { withOther += 1 }
            if out.contacts.contains(where: { if case .finger? = r.world.truth.contacts[$0.contactID]?.maker { true } else { false } }) { withFingers += 1 }
        }
        #expect((70...130).contains(standard))
        #expect((35...85).contains(withOther))
        #expect(withFingers > 100)
    }

    /// A finger touches the glass: never off the surface, never under a PERC's body (it may
    /// rest against a rim). Until 2026-11-28 fingers landed or slid under the PERC: three of
    /// the five wrong-trace cases `lightConfirmed` of seeds 1 / 2 / 7 were a finger that slid
    /// under the PERC onto a marker that did not touch (seed 7 case 6534: 2.0 mm from marker 0).
    @Test("fingers touch the surface, off every PERC's footprint")
    func fingersTouchTheGlassOnly() throws {
        var fingerUpdates = 0, nearRim = 0
        for c in PlacementGenerator.cases(400, seed: 7) {
            var r = try ScenarioRunner(c.scenario)
            let out = r.advance(to: c.scenario.duration)
            let surface = c.scenario.surface!.vec
            let bodies = r.world.definitions.map { ($0.id, $0.footprint.extent) }
            for u in out.contacts {
                guard case .finger? = r.world.truth.contacts[u.contactID]?.maker else { continue }
                fingerUpdates += 1
                // Touch noise moves a reported point a little (HARDWARE-MODEL.md): 2 mm slack.
                #expect(u.position.x > -2 && u.position.y > -2 && u.position.x < surface.x + 2 && u.position.y < surface.y + 2,
                        "case \(c.index): finger at \(u.position)")
                for (id, radius) in bodies {
                    guard let pose = r.world.truePose(of: id, at: u.time) else { continue }
                    let d = u.position.distance(to: pose.position)
                    #expect(d > radius - 2, "case \(c.index): finger at \(u.position), \(d) mm from tangible \(id)'s centre (footprint \(radius) mm)")
                    if d < radius + 5 { nearRim += 1 }
                }
            }
        }
        #expect(fingerUpdates > 10_000)
        #expect(nearRim > 0, "fingers still come up to a PERC's rim")
    }
}
