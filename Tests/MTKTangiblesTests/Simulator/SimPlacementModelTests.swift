// Placement misbehaviour at its configured rates: marker timing, one and two touches, BLE latency.

import Testing
@testable import MTKTangibles
@testable import MTKSimulator

@Suite("Simulator placement model")
struct SimPlacementModelTests {
    @Test("one marker touch only in 3.2% ± 0.6% of untouched placements (20,000 placements)")
    func singleTouchRate() {
        var w = SimWorld(seed: 100)
        w.add(.standardPerc(id: 1, name: "A"))
        var angles = SimRandom(seed: 5)
        let n = 20_000
        for _ in 0..<n {
            w.place(1, at: Pose(position: Vec2(300, 200), angle: SimTest.offScanlineAngle(&angles)))
            w.lift(1)
            _ = w.advance(to: w.now + 0.01)
        }
        let single = w.truth.placements.filter { $0.touchingMarkers.count == 1 }.count
        let rate = Double(single) / Double(n)
        #expect(abs(rate - 0.032) < 0.006, "one-touch rate \(rate)")
        #expect(w.truth.placements.allSatisfy { $0.touchingMarkers.count != 2 })
    }

    @Test("two touches at the four scanline angles ±3°, three elsewhere")
    func scanlineAngles() {
        var w = SimWorld(seed: 101, model: SimTest.model { $0.singleTouchProbability = 0 })
        w.add(.standardPerc(id: 1, name: "A"))
        for deg in stride(from: -10.0, through: 370, by: 0.5) {
            w.place(1, at: Pose(position: Vec2(300, 200), angle: deg * Double.pi / 180))
            w.lift(1)
            _ = w.advance(to: w.now + 0.01)
            let p = w.truth.placements.last!
            let d = [0.0, 90, 180, 270, 360].map { abs(deg - $0) }.min()!
            if abs(d - 3) < 0.01 { continue }  // the edge itself is a rounding question
            #expect(p.touchingMarkers.count == (d <= 3 ? 2 : 3), "at \(deg)°")
        }
    }

    @Test("marker touches arrive 99% within ±150 ms of the field-on notification, the rest up to 400 ms late")
    func onsetWindow() {
        let model = SimTest.model { $0.singleTouchProbability = 0; $0.scanlineTwoTouchProbability = 0 }
        var w = SimWorld(seed: 102, model: model)
        w.add(.standardPerc(id: 1, name: "A"))
        var offsets: [Double] = []
        for _ in 0..<2_500 {
            let out1 = w.advance(to: w.now + 0.05)
            w.place(1, at: Pose(position: Vec2(300, 200), angle: 1))
            var out = w.advance(to: w.now + 0.8)
            out.append(out1)
            w.lift(1)
            out.append(w.advance(to: w.now + 0.3))
            guard let fieldOn = out.sensorEvents.first(where: { $0.kind == .field && $0.value == 1 }) else {
                Issue.record("no field-on"); continue
            }
            offsets += out.contacts.filter { $0.phase == .begin }.map { $0.arrival - fieldOn.arrival }
        }
        let sample = 1.0 / 120  // a touch begins at the first sample at or after its onset
        #expect(offsets.count == 7_500)
        let inWindow = Double(offsets.filter { $0 >= -0.150 && $0 <= 0.150 + sample }.count) / Double(offsets.count)
        #expect(abs(inWindow - 0.99) < 0.004, "in window: \(inWindow)")
        #expect(offsets.allSatisfy { $0 >= -0.150 && $0 <= 0.400 + sample })
        // Inside the window the onsets spread over all of it (uniform): both halves are used.
        let early = offsets.filter { $0 < 0 }.count, late = offsets.filter { $0 >= 0 && $0 <= 0.15 }.count
        #expect(abs(Double(early - late)) / Double(offsets.count) < 0.05)
    }

    @Test("field notifications arrive after one connection interval (uniform, 30 ms) plus 1–3 ms")
    func bleLatency() {
        var w = SimWorld(seed: 103)
        w.add(.standardPerc(id: 1, name: "A"))
        for _ in 0..<3_000 {
            w.place(1, at: Pose(position: Vec2(300, 200), angle: 1))
            _ = w.advance(to: w.now + 0.3)
            w.lift(1)
            _ = w.advance(to: w.now + 0.3)
        }
        let latencies = w.truth.placements.compactMap { p in p.fieldOnArrival.map { $0 - p.fieldOnAt } }
        #expect(latencies.count == 3_000)
        #expect(latencies.allSatisfy { $0 >= 0.001 && $0 <= 0.033 })
        #expect(abs(SimTest.mean(latencies) - 0.017) < 0.001)
        // Uniform over the interval: each 10 ms third holds about a third.
        let low = latencies.filter { $0 < 0.012 }.count
        #expect(abs(Double(low) / 3_000 - 1.0 / 3) < 0.04)
    }
}
