// The analysis core on in-memory inputs: determinism, recording equivalence, profiles without device time.
import Foundation
import MTKTangibles
import MTKSimulator
import Testing
@testable import PercDiagnose

@Suite struct DiagnoseCoreTests {
    @Test func aRecordingDiagnosesLikeTheLiveObservation() {
        let s = SimulatedSession.run(seed: 21, duration: 60) { $0.notificationLossProbability = 0.05; $0.lightMissProbability = 0.1 }
        var replayed = RecordingDiagnosis.run(s.recording, source: s.report.source)
        replayed.duration = s.report.duration
        // A recording without settings or RSSI readings says so; the figures are the live ones.
        #expect(replayed.notes.count == 2 && replayed.notes[0].contains("the defaults: the header has none"), "\(replayed.notes)")
        replayed.notes = []
        #expect(replayed == s.report)
        #expect(s.report.tangibles.allSatisfy { $0.light.exposures > 0 && $0.field.onCount >= 2 })
    }

    @Test func theSerialProfileSaysItCannotMeasureLossOrLatency() {
        let s = SimulatedSession.run(seed: 22, duration: 30, profile: .mtkSerial)
        for t in s.report.tangibles {
            #expect(t.link.lost == nil && t.link.lossRate == nil && t.link.latencyAboveFastest == nil && t.link.clockDriftPPM == nil)
            #expect(t.link.note?.contains("mtk-serial profile has no sequence numbers or device time") == true, "\(t.link.note ?? "")")
            #expect(t.link.notifications > 0 && t.field.onCount >= 1)
        }
        #expect(ReportTable.render(s.report).contains("cannot be measured"))
    }

    @Test func sequenceGapsCountLossAndIgnoreRepeats() {
        var link = LinkAccumulator()
        for (i, seq) in [UInt16(65534), 65535, 2, 2, 3, 7].enumerated() {
            link.observe(SensorEvent(tangible: 1, kind: .heartbeat, value: 0, sequence: seq, deviceTime: UInt32(i * 1000), arrival: Double(i)))
        }
        let f = link.report(now: 6, profile: .percV1)
        // 65535 → 2 skips 0 and 1 (wrap); 3 → 7 skips three; the repeated 2 is reordering.
        #expect(f.lost == 5 && f.outOfOrder == 1)
        #expect(f.lossRate == 5.0 / 11.0, "5 lost of 6 received + 5 lost")
    }

    @Test func anUnansweredColourChangeIsAMissOnlyWhenHeldLongEnough() {
        var light = LightAccumulator(origin: 0)
        let s = DiagnoseSettings()
        let sensor = Vec2(100, 100)
        func overlay(_ id: UInt64, _ c: LightColour?) -> Overlay {
            Overlay(id: id, patches: c.map { [Patch(id: 1, tangible: 1, center: sensor, radius: 4, colour: $0, purpose: .stationary)] } ?? [])
        }
        light.light(SensorEvent(tangible: 1, kind: .light, value: 0, arrival: 0.1), settings: s)
        light.presented(overlay(1, .white), tangible: 1, at: 1.0, sensor: sensor, settings: s)
        light.light(SensorEvent(tangible: 1, kind: .light, value: 1, arrival: 1.05), settings: s)   // answered, 50 ms
        light.presented(overlay(2, nil), tangible: 1, at: 1.5, sensor: sensor, settings: s)
        light.light(SensorEvent(tangible: 1, kind: .light, value: 0, arrival: 1.55), settings: s)   // back on the black background
        light.presented(overlay(3, .white), tangible: 1, at: 2.0, sensor: sensor, settings: s)      // no answer, held 0.3 s
        light.presented(overlay(4, nil), tangible: 1, at: 2.3, sensor: sensor, settings: s)
        light.presented(overlay(5, .white), tangible: 1, at: 3.0, sensor: sensor, settings: s)      // no answer, held 0.05 s
        light.presented(overlay(6, nil), tangible: 1, at: 3.05, sensor: sensor, settings: s)
        light.tick(now: 4, sequenced: false, settings: s)
        let f = light.report()
        #expect(f.exposures == 3, "\(f)")
        #expect(f.answered == 1 && f.misses == 1 && f.cutShort == 1, "\(f)")
        #expect(f.responseLatency?.p50Ms == 50 && f.missTimes == [2.0])
        // A change 10 s after anything happened is spontaneous.
        light.advance(to: 13, linkUp: true)
        light.light(SensorEvent(tangible: 1, kind: .light, value: 1, arrival: 13), settings: s)
        #expect(light.report().spontaneousFlips == 1)
    }

    @Test func aSignedDistributionKeepsTheNewestSamplesOnly() throws {
        // serve's live diagnostics add onsets with every placement for as long as it runs,
        // and every /metrics scrape sorts them: the newest `capacity` are kept (issue 36).
        var d = SignedDistribution()
        let n = SignedDistribution.capacity * 3 + 17
        for k in 0..<n { d.add(Double(k)) }
        d.add(.nan)
        #expect(d.count == SignedDistribution.capacity)
        #expect(d.min == Double(n - SignedDistribution.capacity) && d.max == Double(n - 1))
        let decoded = try JSONDecoder().decode(SignedDistribution.self, from: JSONEncoder().encode(d))
        #expect(decoded.samples.sorted() == d.samples.sorted(), "the JSON holds the samples, as before")
        #expect(SignedDistribution(Array(repeating: 1.0, count: n)).count == SignedDistribution.capacity)
    }

    @Test func aLinksFiguresStayBoundedAndItsDriftRightOverAWeekOfNotifications() {
        // 600,000 notifications (100 Hz for 100 minutes) from a PERC whose clock runs 50 ppm
        // fast, with 2-9 ms of link latency: the drift comes from the envelope of the whole
        // run and the memory stays bounded (issue 36: up to 200,000 pairs a PERC before).
        var link = LinkAccumulator()
        var rng = SystemRandomNumberGenerator()
        let n = 600_000
        for k in 0..<n {
            let device = Double(k) / 100
            let arrival = 1000 + device / (1 + 50e-6) + 0.002 + Double.random(in: 0..<0.007, using: &rng)
            link.observe(SensorEvent(tangible: 1, kind: .light, value: k % 2, sequence: UInt16(truncatingIfNeeded: k),
                                     deviceTime: UInt32(truncatingIfNeeded: UInt64(device * 1e6)), arrival: arrival))
        }
        let f = link.report(now: 1000 + Double(n) / 100, profile: .percV1)
        #expect(abs((f.clockDriftPPM ?? 0) + 50) < 2, "drift \(f.clockDriftPPM ?? .nan) ppm")
        #expect(link.memoryFigures.recent <= 4096 && link.memoryFigures.buckets <= OffsetEnvelope.maxBuckets)
        #expect(f.notifications == n && f.lost == 0)
    }
}
