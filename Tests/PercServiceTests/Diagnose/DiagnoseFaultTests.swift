// The diagnosis finds faults injected into the simulator, each within a stated tolerance.
import Foundation
import MTKTangibles
import MTKSimulator
import Testing
@testable import PercDiagnose

/// 300 simulated seconds, two PERCs placed every 20 s and left to rest (≈ 30 placements,
/// ≈ 300 stationary light checks). Tolerances are a few standard deviations of what that
/// much data can tell, plus the analysis's measured floor (about 2% false misses).
@Suite struct DiagnoseFaultTests {
    static func pooled(_ s: SimulatedSession, _ f: (TangibleDiagnosis) -> Int) -> Int { s.report.tangibles.reduce(0) { $0 + f($1) } }

    @Test func notificationLossIsFoundFromSequenceGaps() {
        let s = SimulatedSession.run(seed: 11, duration: 300) { $0.notificationLossProbability = 0.1 }
        let lost = Self.pooled(s) { $0.link.lost ?? 0 }
        // Only losses in the last notifications before the end are invisible (no later number).
        print("diagnose loss: found \(lost) lost (rates \(s.report.tangibles.map { $0.link.lossRate ?? -1 })), simulator lost \(s.truth.lostNotifications), injected p=0.1")
        #expect(abs(lost - s.truth.lostNotifications) <= 4, "found \(lost), injected \(s.truth.lostNotifications)")
        for t in s.report.tangibles {
            #expect(abs((t.link.lossRate ?? 0) - 0.1) <= 0.03, "\(t.name): loss rate \(t.link.lossRate ?? -1), injected 0.1")
        }
    }

    @Test func lightMissRateIsFound() {
        let s = SimulatedSession.run(seed: 12, duration: 300) { $0.lightMissProbability = 0.15 }
        let misses = Self.pooled(s) { $0.light.misses }, answered = Self.pooled(s) { $0.light.answered }
        let rate = Double(misses) / Double(misses + answered)
        print("diagnose misses: found \(misses)/\(misses + answered) = \(rate), simulator missed \(s.truth.lightMisses)/\(s.truth.lightStimuli) stimuli, injected 0.15")
        #expect(misses + answered >= 200, "enough colour changes under known sensors")
        #expect(abs(rate - 0.15) <= 0.05, "miss rate \(rate) over \(misses + answered), injected 0.15")
    }

    @Test func spontaneousFlipRateIsFound() {
        let s = SimulatedSession.run(seed: 13, duration: 300) { $0.lightSpontaneousFlipRate = 0.1 }
        let flips = Self.pooled(s) { $0.light.spontaneousFlips }
        let hours = s.report.tangibles.reduce(0) { $0 + $1.light.quietHours }
        let perHour = Double(flips) / hours
        print("diagnose flips: found \(flips) in \(hours) quiet h = \(perHour)/h, simulator flipped \(s.truth.spontaneousFlips.count) times in \(2 * s.duration) s, injected 360/h")
        #expect(flips >= 20, "\(flips) flips seen")
        // Against the rate the simulator really flipped at in this run (360/h injected; a run
        // of two sensors for 300 s realises 40–60 flips, and which ones depends on every
        // overlay the light checks drew). Poisson: ~30 flips found give ±18% at one σ; ±35%
        // is about two σ.
        let realised = Double(s.truth.spontaneousFlips.count) / (2 * s.duration) * 3600
        #expect(abs(perHour - realised) <= 0.35 * realised, "\(perHour) flips/h found, \(realised)/h realised (360/h injected)")
        #expect(abs(realised - 360) <= 0.35 * 360, "the simulator flips at about the injected rate: \(realised)/h")
    }

    @Test func fieldOnWindowAndLinkLatencyAreFound() {
        let s = SimulatedSession.run(seed: 14, duration: 300) { m in
            m.markerOnsetWindow = 0.08; m.markerOnsetInWindowProbability = 1; m.bleConnectionInterval = 0.05
        }
        for t in s.report.tangibles {
            let d = t.field.onsetOffsetsMs
            print("diagnose window: \(t.name) onsets \(d.min ?? 0)…\(d.max ?? 0) ms (n=\(d.count)), suggested \(t.field.suggestedWindowMs ?? -1) ms, injected ±80 ms; delay p99 \(t.link.latencyAboveFastest?.p99Ms ?? -1) ms (injected interval 50 ms), drift \(t.link.clockDriftPPM ?? 0) ppm")
            #expect(d.count >= 30, "\(t.name): \(d.count) onsets")
            // Touch samples come every 8.3 ms, so an onset is seen up to one sample late; and a
            // field-on notification queued behind the placement's light change arrives late.
            // The field-on's time read through the link's clock is late by as much as the
            // fastest notification seen so far waited itself, up to one 50 ms interval in a
            // link's first notifications (PERC B of this run: −100.1 ms once the light checks'
            // staggered probes moved the run's timing).
            #expect((d.magnitudeQuantile(0.95) ?? 999) <= 80 + 9, "\(t.name): 95% of onsets within ±\(d.magnitudeQuantile(0.95) ?? -1) ms for a ±80 ms window")
            #expect((d.min ?? -999) >= -110 && (d.max ?? 999) <= 110, "\(t.name): onsets \(d.min ?? 0)…\(d.max ?? 0) ms")
            #expect((t.field.suggestedWindowMs ?? 0) >= 80 && (t.field.suggestedWindowMs ?? 999) <= 110,
                    "\(t.name): suggested \(t.field.suggestedWindowMs ?? -1) ms for onsets within ±80 ms")
            // One 50 ms connection interval + 1–3 ms host stack, above the fastest (~1 ms).
            let lat = t.link.latencyAboveFastest
            #expect((lat?.p99Ms ?? 0) >= 44 && (lat?.p99Ms ?? 999) <= 53, "\(t.name): delay p99 \(lat?.p99Ms ?? -1) ms")
            #expect(abs(t.link.clockDriftPPM ?? 999) < 50, "\(t.name): drift \(t.link.clockDriftPPM ?? -1) ppm of a drift-free clock")
        }
        let suggestions = SuggestionRules.suggest(s.report, settings: DiagnoseSettings(), currentWindowMs: 200, currentFailures: 3)
        let window = suggestions.first { $0.key == "recognition.time_window_ms" }
        #expect(window.map { (80...110).contains($0.value) } ?? false, "\(suggestions)")
    }

    @Test func aHealthySimulationShowsNoFaults() {
        let s = SimulatedSession.run(seed: 15, duration: 300)
        let misses = Self.pooled(s) { $0.light.misses }, answered = Self.pooled(s) { $0.light.answered }
        print("diagnose healthy: \(misses) misses of \(misses + answered), flips \(Self.pooled(s) { $0.light.spontaneousFlips }), response p50 \(s.report.tangibles.map { $0.light.responseLatency?.p50Ms ?? -1 }) ms")
        #expect(Double(misses) / Double(max(1, misses + answered)) < 0.04, "\(misses) false misses of \(misses + answered)")
        #expect(Self.pooled(s) { $0.link.lost ?? 0 } == 0)
        #expect(Self.pooled(s) { $0.light.spontaneousFlips } <= 2)
        // Light response: 1–4 display frames at 60 Hz, then one 30 ms connection interval.
        for t in s.report.tangibles {
            let r = t.light.responseLatency
            #expect((r?.p50Ms ?? 0) >= 35 && (r?.p50Ms ?? 999) <= 80, "\(t.name): response p50 \(r?.p50Ms ?? -1) ms")
            #expect(t.recognition.recognitions >= 14 && t.recognition.restingSeconds > 150, "\(t.name): \(t.recognition)")
        }
    }
}
