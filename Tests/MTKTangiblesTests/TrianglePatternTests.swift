// Marker patterns: rigid fits of any triangle, no mirror images, tuple poses (2 and 4 candidates).

import Testing
@testable import MTKTangibles
@testable import MTKSimulator

@Suite("TrianglePattern")
struct TrianglePatternTests {
    let shapes: [[Vec2]] = [
        [Vec2(0, 0), Vec2(30, 0), Vec2(0, 30)],
        [Vec2(0, 0), Vec2(45, 0), Vec2(15, 25)],
        [Vec2(0, 0), Vec2(52, 0), Vec2(12, 18)],
    ]

    @Test("a placed pattern fits with its pose, whatever order the points come in", arguments: [0, 1, 2])
    func fitsAnyOrder(shape: Int) {
        let pattern = TrianglePattern(markers: shapes[shape])
        let pose = Pose(position: Vec2(200, 100), angle: 2.1)
        let pts = pattern.markers.map(pose.apply)
        for perm in TrianglePattern.perms {
            let f = pattern.fit([pts[perm[0]], pts[perm[1]], pts[perm[2]]], tolerance: 1)
            #expect(f != nil)
            #expect(f!.pose.position.distance(to: pose.position) < 1e-6)
            #expect(Pose.angleDistance(f!.pose.angle, pose.angle) < 1e-6)
        }
    }

    @Test("the mirror image of a scalene pattern does not fit")
    func noMirror() {
        let pattern = TrianglePattern(markers: shapes[1])
        let mirrored = pattern.markers.map { Vec2($0.x, -$0.y) + Vec2(100, 100) }
        #expect(pattern.fit(mirrored, tolerance: 2) == nil)
    }

    @Test("two points of the standard PERC: the hypotenuse gives 2 poses, a leg 4")
    func tuples() {
        let pattern = TrianglePattern(markers: shapes[0])
        let pose = Pose(position: Vec2(100, 100), angle: 0.4)
        let p = pattern.markers.map(pose.apply)
        let hyp = pattern.tuplePoses(p[1], p[2], tolerance: 2)
        #expect(hyp.count == 2)
        #expect(hyp.contains { $0.pose.position.distance(to: pose.position) < 1e-6 })
        let leg = pattern.tuplePoses(p[0], p[1], tolerance: 2)
        #expect(leg.count == 4)
        #expect(leg.contains { $0.pose.position.distance(to: pose.position) < 1e-6 && Pose.angleDistance($0.pose.angle, pose.angle) < 1e-6 })
    }

    @Test("the grid finds the same triples as checking all of them")
    func gridMatchesBruteForce() {
        var rng = SimRandom(seed: 5)
        var table = TraceTable()
        let origin = InputOrigin(kind: .simulator, device: "g")
        var contacts: [ContactUpdate] = []
        let pattern = TrianglePattern(markers: shapes[0])
        for k in 0..<5 {
            let pose = Pose(position: Vec2(80 + 90 * Double(k), 100), angle: rng.uniform(0, 6))
            for m in pattern.markers { contacts.append(ContactUpdate(origin: origin, contactID: Int64(contacts.count), phase: .begin, position: pose.apply(m), time: 0, arrival: 0)) }
        }
        for _ in 0..<40 {
            contacts.append(ContactUpdate(origin: origin, contactID: Int64(contacts.count), phase: .begin,
                                          position: Vec2(rng.uniform(0, 500), rng.uniform(0, 300)), time: 0, arrival: 0))
        }
        table.apply(Frame(number: 1, time: 0, contacts: contacts))
        var scene = FrameScene(table: table, cellSize: 50)
        let finder = CandidateFinder(historyWindow: 0.5, historySamples: 5, historySlack: 1.5)
        let found = Set(finder.triples(pattern, tolerance: 2, scene: &scene, table: table).map(\.traceSet))
        var brute: Set<[TraceID]> = []
        let ids = scene.ids
        for a in 0..<ids.count { for b in (a + 1)..<ids.count { for c in (b + 1)..<ids.count
            where pattern.fit([scene.positions[a], scene.positions[b], scene.positions[c]], tolerance: 2) != nil {
                brute.insert([ids[a], ids[b], ids[c]].sorted())
        } } }
        #expect(found == brute)
        #expect(found.count >= 5)
    }
}
