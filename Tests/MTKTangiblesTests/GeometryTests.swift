import Testing
@testable import MTKTangibles

@Suite struct GeometryTests {
    @Test func poseRoundTripsLocalAndSurfacePoints() {
        let pose = Pose(position: Vec2(100, 50), angle: .pi / 2)
        let p = pose.apply(Vec2(10, 0))
        #expect(abs(p.x - 100) < 1e-9 && abs(p.y - 60) < 1e-9)
        let back = pose.local(p)
        #expect(abs(back.x - 10) < 1e-9 && abs(back.y) < 1e-9)
    }

    @Test func anglesAreNormalised() {
        #expect(abs(Pose.normalise(-.pi / 2) - 3 * .pi / 2) < 1e-12)
        #expect(Pose.angleDistance(0.1, 2 * .pi - 0.1) < 0.2 + 1e-12)
    }

    @Test func definitionsAreCentredOnTheirCentroid() {
        let d = TangibleDefinition.standardPerc(id: 1, name: "a")
        let c = d.markers.reduce(Vec2.zero, +)
        #expect(c.length < 1e-9)
        #expect(d.footprint.contains(Vec2(29, 0)))
        #expect(!d.footprint.contains(Vec2(31, 0)))
    }

    @Test func frameAssemblerNumbersFramesAndNeverGoesBack() {
        var a = FrameAssembler()
        a.add(SensorEvent(tangible: 1, kind: .field, value: 1, arrival: 0.5))
        let f1 = a.cut(at: 1.0)
        let f2 = a.cut(at: 0.9)
        #expect(f1.number == 1 && f1.sensorEvents.count == 1)
        #expect(f2.number == 2 && f2.time == 1.0 && f2.sensorEvents.isEmpty)
    }
}
