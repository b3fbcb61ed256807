// A simple one-candidate-at-a-time light checker (thesis 3.3.2), answering needs in `bench accuracy`.

import LightCheck
import MTKTangibles

/// The thesis's light check, one hypothesis after another and one tangible at a time: under
/// the candidate's sensor position show the colour opposite to the sensor's last state,
/// under the other candidates the current colour (decoys). A change to the shown colour
/// within `wait` is probed once more the other way round (a spontaneous flip or a late
/// answer to an earlier probe rarely repeats); two changes confirm the candidate, otherwise
/// the next one is tried; none → rejected. Between checks the patches go and the sensor is
/// left `settle` to follow the display back. Stands in for the LightCheck scheduler until
/// that lands in main (`bench accuracy --checker sequential` still uses it as the thesis baseline).
struct SequentialLightChecker {
    var wait: Seconds = 0.3
    var settle: Seconds = 0.2
    var patchRadius = 4.0

    private struct Active {
        var tangible: TangibleID
        var request: UInt64
        /// The hypothesis probed now (by id: the engine may add or drop hypotheses of a
        /// running request) and those probed before.
        var id: Int
        var tried: Set<Int>
        var startedAt: Seconds
        var baseline: LightColour
        /// The first change was seen; this is the repeat probe.
        var repeating = false
    }

    private var light: [TangibleID: LightColour] = [:]
    private var active: Active?
    private var pausedUntil: Seconds = -.infinity
    private var answered: Set<UInt64> = []
    private var overlayID: UInt64 = 0
    private var shown: [Patch] = []

    /// Consumes a frame's light events and the engine's needs; returns outcomes for the next
    /// step and a new overlay to present when the patches changed.
    mutating func step(_ frame: Frame, needs: [VerificationNeed]) -> (outcomes: [VerificationOutcome], overlay: Overlay?) {
        let now = frame.time
        var outcomes: [VerificationOutcome] = []
        for e in frame.sensorEvents where e.kind == .light {
            let colour = LightColour(sensorValue: e.value)
            light[e.tangible] = colour
            guard var a = active, a.tangible == e.tangible, colour == a.baseline.opposite,
                  let need = needs.first(where: { $0.request == a.request }), need.hypotheses.contains(where: { $0.id == a.id })
            else { continue }
            if a.repeating {
                outcomes.append(VerificationOutcome(tangible: a.tangible, request: a.request,
                                                    result: .confirmed(hypothesis: a.id), time: now))
                finish(now)
            } else {
                a.repeating = true
                a.baseline = colour
                a.startedAt = now
                active = a
            }
        }
        if let a = active {
            if let need = needs.first(where: { $0.request == a.request }) {
                if now - a.startedAt >= wait || !need.hypotheses.contains(where: { $0.id == a.id }) {
                    let tried = a.tried.union([a.id])
                    if let next = need.hypotheses.first(where: { !tried.contains($0.id) }) {
                        active = Active(tangible: a.tangible, request: a.request, id: next.id, tried: tried, startedAt: now,
                                        baseline: light[a.tangible] ?? .black)
                    } else {
                        outcomes.append(VerificationOutcome(tangible: a.tangible, request: a.request, result: .rejected, time: now))
                        finish(now)
                    }
                }
            } else {
                finish(now)  // withdrawn
            }
        }
        if active == nil, pausedUntil <= now,
           let need = needs.first(where: { !answered.contains($0.request) && !$0.hypotheses.isEmpty }) {
            active = Active(tangible: need.tangible, request: need.request, id: need.hypotheses[0].id, tried: [], startedAt: now,
                            baseline: light[need.tangible] ?? .black)
        }
        for o in outcomes { answered.insert(o.request) }
        var patches: [Patch] = []
        if let a = active, let need = needs.first(where: { $0.request == a.request }) {
            // Decoys first, the probe last: where patches overlap the probe is drawn on top.
            for h in need.hypotheses where h.id != a.id {
                patches.append(Patch(id: patches.count, tangible: a.tangible, center: h.sensorPosition, radius: patchRadius,
                                     colour: a.baseline, purpose: .decoy))
            }
            if let probe = need.hypotheses.first(where: { $0.id == a.id }) {
                patches.append(Patch(id: patches.count, tangible: a.tangible, center: probe.sensorPosition,
                                     radius: patchRadius, colour: a.baseline.opposite, purpose: .probe))
            }
        }
        guard patches != shown else { return (outcomes, nil) }
        shown = patches
        overlayID += 1
        return (outcomes, Overlay(id: overlayID, patches: patches))
    }

    private mutating func finish(_ now: Seconds) {
        active = nil
        pausedUntil = now + settle
    }
}

/// The frame core drives it as any light-check planner: a new overlay is a changed one.
extension SequentialLightChecker: LightCheckPlanning {
    mutating func plan(needs: [VerificationNeed], frame: Frame) -> LightCheckPlan {
        let (outcomes, overlay) = step(frame, needs: needs)
        return LightCheckPlan(overlay: overlay ?? Overlay(id: overlayID, patches: shown), overlayChanged: overlay != nil,
                              outcomes: outcomes, calibrations: [])
    }
}
