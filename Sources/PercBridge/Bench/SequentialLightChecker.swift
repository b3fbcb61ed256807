// A simple one-candidate-at-a-time light checker (thesis 3.3.2), answering needs in `bench accuracy`.

import MTKTangibles

/// The thesis's light check, one hypothesis after another: under the candidate's sensor
/// position show the colour opposite to the sensor's last state, under the other candidates
/// the current colour (decoys); a change to the shown colour within `wait` confirms it,
/// otherwise the next candidate is tried; none → rejected. After each check the patches go
/// and the sensor is left `settle` to follow the display back before the next probe.
/// Stands in for the LightCheck scheduler until that lands in main.
struct SequentialLightChecker {
    var wait: Seconds = 0.3
    var settle: Seconds = 0.2
    var patchRadius = 4.0

    private struct Active {
        var request: UInt64
        var index: Int
        var startedAt: Seconds
        var baseline: LightColour
    }

    private var light: [TangibleID: LightColour] = [:]
    private var active: [TangibleID: Active] = [:]
    private var pausedUntil: [TangibleID: Seconds] = [:]
    private var answered: Set<UInt64> = []
    private var overlayID: UInt64 = 0
    private var shown: [Patch] = []

    /// Consumes a frame's light events and the engine's needs; returns outcomes for the next
    /// step and a new overlay to present when the patches changed.
    mutating func step(_ frame: Frame, needs: [VerificationNeed]) -> (outcomes: [VerificationOutcome], overlay: Overlay?) {
        let now = frame.time
        var outcomes: [VerificationOutcome] = []
        let byTangible = Dictionary(needs.map { ($0.tangible, $0) }, uniquingKeysWith: { a, _ in a })
        for e in frame.sensorEvents where e.kind == .light {
            let colour = LightColour(sensorValue: e.value)
            light[e.tangible] = colour
            if let a = active[e.tangible], colour == a.baseline.opposite, let need = byTangible[e.tangible],
               need.request == a.request, a.index < need.hypotheses.count {
                outcomes.append(VerificationOutcome(tangible: e.tangible, request: a.request,
                                                    result: .confirmed(hypothesis: need.hypotheses[a.index].id), time: now))
                finish(e.tangible, now)
            }
        }
        for (t, a) in active {
            guard let need = byTangible[t], need.request == a.request else { finish(t, now); continue }
            if now - a.startedAt >= wait {
                if a.index + 1 < need.hypotheses.count {
                    active[t] = Active(request: a.request, index: a.index + 1, startedAt: now, baseline: light[t] ?? .black)
                } else {
                    outcomes.append(VerificationOutcome(tangible: t, request: a.request, result: .rejected, time: now))
                    finish(t, now)
                }
            }
        }
        for need in needs where active[need.tangible] == nil && !answered.contains(need.request)
            && (pausedUntil[need.tangible] ?? -.infinity) <= now && !need.hypotheses.isEmpty {
            active[need.tangible] = Active(request: need.request, index: 0, startedAt: now, baseline: light[need.tangible] ?? .black)
        }
        for o in outcomes { answered.insert(o.request) }
        var patches: [Patch] = []
        for t in active.keys.sorted() {
            let a = active[t]!
            guard let need = byTangible[t] else { continue }
            for (i, h) in need.hypotheses.enumerated() {
                let probe = i == a.index
                patches.append(Patch(id: patches.count, tangible: t, center: h.sensorPosition, radius: patchRadius,
                                     colour: probe ? a.baseline.opposite : a.baseline, purpose: probe ? .probe : .decoy))
            }
        }
        guard patches != shown else { return (outcomes, nil) }
        shown = patches
        overlayID += 1
        return (outcomes, Overlay(id: overlayID, patches: patches))
    }

    private mutating func finish(_ t: TangibleID, _ now: Seconds) {
        active[t] = nil
        pausedUntil[t] = now + settle
    }
}
