// The PERC light sensor: follows presented overlays with its latency, misses and flips at its rates.

import Testing
@testable import MTKTangibles
@testable import MTKSimulator

@Suite("Simulator light sensor")
struct SimLightSensorTests {
    static let noFlips = SimTest.model { $0.lightSpontaneousFlipRate = 0; $0.heartbeatInterval = 0 }

    /// A placed standard PERC in a world with the given model, after its touches settled.
    static func placed(_ seed: UInt64, _ model: HardwareModel, angle: Double = 0.6) -> SimWorld {
        var w = SimWorld(seed: seed, model: model)
        w.add(.standardPerc(id: 1, name: "A"))
        w.place(1, at: Pose(position: Vec2(300, 200), angle: angle))
        _ = w.advance(to: 1)
        return w
    }

    static func patch(_ id: UInt64, at p: Vec2, _ colour: LightColour) -> Overlay {
        Overlay(id: id, patches: [Patch(id: 1, tangible: 1, center: p, radius: 4, colour: colour, purpose: .probe)])
    }

    @Test("a patch under the sensor is reported 1–4 display frames plus one connection interval later; 3% ± 0.8% of checks are missed")
    func followsOverlays() {
        var w = Self.placed(300, Self.noFlips)
        let sensor = w.trueSensorPosition(of: 1)!
        var known = LightColour.black
        var checks = 0, responses = 0
        var latencies: [Double] = []
        for k in 0..<4_000 {
            // Alternate between a white patch and nothing (black background).
            let colour: LightColour = k % 2 == 0 ? .white : .black
            let t = w.now
            w.present(colour == .white ? Self.patch(UInt64(k + 1), at: sensor, .white) : .empty, at: t)
            let out = w.advance(to: t + 0.25)
            let light = out.sensorEvents.filter { $0.kind == .light }
            if colour != known {
                checks += 1
                if let r = light.first {
                    responses += 1
                    latencies.append(r.arrival - t)
                    #expect(r.value == colour.sensorValue)
                }
            } else {
                #expect(light.isEmpty)
            }
            if let last = light.last { known = LightColour(sensorValue: last.value) }
        }
        let missRate = 1 - Double(responses) / Double(checks)
        #expect(checks > 3_800)
        #expect(abs(missRate - 0.03) < 0.008, "miss rate \(missRate)")
        #expect(latencies.allSatisfy { $0 >= 1.0 / 60 + 0.001 - 1e-9 && $0 <= 4.0 / 60 + 0.033 + 1e-9 })
        // Mean: 2.5 frames at 60 Hz + half an interval + 2 ms.
        #expect(abs(SimTest.mean(latencies) - (2.5 / 60 + 0.015 + 0.002)) < 0.002, "mean \(SimTest.mean(latencies))")
        // Each response frame count 1–4 is used: the earliest and latest latencies span about 3 frames + an interval.
        #expect(latencies.max()! - latencies.min()! > 3.0 / 60 + 0.02)
    }

    @Test("a patch that is not under the sensor gets no response")
    func patchElsewhere() {
        var w = Self.placed(301, SimTest.model { $0.lightSpontaneousFlipRate = 0; $0.lightMissProbability = 0 })
        let sensor = w.trueSensorPosition(of: 1)!
        w.present(Self.patch(1, at: sensor + Vec2(12, 0), .white), at: w.now)
        #expect(w.advance(to: 2).sensorEvents.filter { $0.kind == .light }.isEmpty)
        w.present(Self.patch(2, at: sensor, .white), at: w.now)
        #expect(w.advance(to: 3).sensorEvents.filter { $0.kind == .light }.map(\.value) == [1])
    }

    @Test("the sensor sits at pose + lightSensorOffset: rotating the tangible moves it")
    func sensorFollowsPose() {
        let w = Self.placed(302, Self.noFlips, angle: Double.pi / 2)
        #expect(w.trueSensorPosition(of: 1)!.distance(to: Vec2(300, 205)) < 1e-9)
    }

    @Test("a scene change under the sensor (background) is reported too")
    func backgroundChange() {
        var w = Self.placed(303, SimTest.model { $0.lightSpontaneousFlipRate = 0; $0.lightMissProbability = 0 })
        w.setBackground(.white)
        #expect(w.advance(to: 2).sensorEvents.filter { $0.kind == .light }.map(\.value) == [1])
    }

    @Test("spontaneous flips at 0.5%/s ± 10% (10 PERCs, 20,000 s each)")
    func spontaneousFlips() {
        let model = SimTest.model { $0.touchSampleRate = 1; $0.heartbeatInterval = 0; $0.batteryInterval = 0 }
        var w = SimWorld(seed: 304, model: model)
        for id in 1...10 { w.add(.standardPerc(id: id, name: "P\(id)")) }
        let start = w.advance(to: 1).sensorEvents.filter { $0.kind == .light }.count
        #expect(start == 10)  // the state read at link-up
        let out = w.advance(to: 20_001)
        let flips = out.sensorEvents.filter { $0.kind == .light }.count
        let expected = 0.005 * 10 * 20_000
        #expect(abs(Double(flips) - expected) < 0.1 * expected, "\(flips) flips, expected \(expected)")
        #expect(w.truth.spontaneousFlips.count == flips)
    }
}
