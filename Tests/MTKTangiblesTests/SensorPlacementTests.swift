// Where a PERC's light sensor sits against its markers: the define/list warning's geometry.
import Testing
@testable import MTKTangibles

@Suite struct SensorPlacementTests {
    @Test func theStandardPercsSensorIsAsFarFromMarkersZeroAndOne() throws {
        let d = TangibleDefinition.standardPerc(id: 1, name: "PERC")
        let found = d.sensorAmbiguities(tolerance: 2)
        #expect(found.count == 1)
        let a = try #require(found.first)
        #expect(a.first == 0 && a.second == 1)
        #expect(abs(a.firstDistance - 18.03) < 0.01 && abs(a.secondDistance - 18.03) < 0.01)
        #expect(a.difference < 1e-9)
    }

    @Test func theSuggestedPlaceResolvesEveryMarkerAndLiesOnThePerc() throws {
        for markers in [[Vec2(0, 0), Vec2(30, 0), Vec2(0, 30)], [Vec2(0, 0), Vec2(52, 0), Vec2(12, 18)]] {
            var d = TangibleDefinition(id: 1, name: "P", kind: .perc, markers: markers, footprint: .circle(radius: 30),
                                       lightSensorOffset: Vec2(5, 0))
            #expect(!d.sensorAmbiguities(tolerance: 2).isEmpty, "\(markers)")
            let better = try #require(d.suggestedSensorOffset(tolerance: 2))
            #expect(d.footprint.contains(better))
            #expect(d.markers.allSatisfy { $0.distance(to: better) >= 5 })
            #expect(better.distance(to: Vec2(5, 0)) <= 15)
            d.lightSensorOffset = better
            #expect(d.sensorAmbiguities(tolerance: 2.5).isEmpty, "\(markers): \(better)")
            #expect(d.sensorPlacementWarning(tolerance: 2) == nil)
        }
    }

    @Test func theWarningNamesTheMarkersTheDistancesAndTheFix() throws {
        let d = TangibleDefinition.standardPerc(id: 1, name: "PERC")
        let w = try #require(d.sensorPlacementWarning(tolerance: 2))
        #expect(w.hasPrefix("the light sensor is 18.0 mm from marker 0 and 18.0 mm from marker 1 (0.0 mm apart)"), "\(w)")
        #expect(w.contains("differ by 2.0 mm or more"))
        #expect(d.suggestedSensorOffset(tolerance: 2) != nil)
        #expect(w.contains("Put the sensor at ("), "\(w)")
        #expect(w.contains("(now (5.0, 0.0) mm;"), "\(w)")
    }

    @Test func wellPlacedSensorsPucsAndUnknownOffsetsGetNoWarning() {
        // The pairing demo's scalene PERC: 34.3, 11.8, 28.1 mm.
        let scalene = TangibleDefinition(id: 7, name: "S", kind: .perc, markers: [Vec2(0, 0), Vec2(45, 0), Vec2(15, 25)],
                                         footprint: .circle(radius: 30), lightSensorOffset: Vec2(14, -4))
        #expect(scalene.sensorAmbiguities(tolerance: 2).isEmpty)
        #expect(scalene.sensorPlacementWarning(tolerance: 2) == nil)
        #expect(scalene.suggestedSensorOffset(tolerance: 2) == nil)
        var puc = TangibleDefinition.standardPerc(id: 2, name: "Puck")
        puc.kind = .puc
        #expect(puc.sensorPlacementWarning(tolerance: 2) == nil)
        var unknown = TangibleDefinition.standardPerc(id: 3, name: "U")
        unknown.lightSensorOffset = nil
        #expect(unknown.sensorPlacementWarning(tolerance: 2) == nil)
        #expect(TangibleDefinition.standardPerc(id: 4, name: "Off").sensorPlacementWarning(tolerance: 0) == nil,
                "locate_ambiguity 0: nothing is ambiguous")
    }

    @Test func noPlaceInReachSaysHowToMoveItInstead() throws {
        // The standard pattern with its sensor on the centroid (as far from markers 1 and 2)
        // and a footprint too small to move it: no grid point on the PERC resolves them.
        let tiny = TangibleDefinition(id: 1, name: "T", kind: .perc, markers: [Vec2(0, 0), Vec2(30, 0), Vec2(0, 30)],
                                      footprint: .circle(radius: 0.4), lightSensorOffset: Vec2(0, 0))
        #expect(tiny.suggestedSensorOffset(tolerance: 2) == nil)
        let w = try #require(tiny.sensorPlacementWarning(tolerance: 2))
        #expect(w.contains("Move the sensor so that its distances to the three markers differ by 2.0 mm or more"), "\(w)")
    }
}
