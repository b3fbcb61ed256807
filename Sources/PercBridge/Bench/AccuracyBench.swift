// `percbridge bench accuracy`: recognition accuracy over seeded random placements in the simulator.

import ArgumentParser
import Foundation
import Histogram
import LightCheck
import MTKTangibles

/// Plays `PlacementGenerator` cases (full HARDWARE-MODEL.md misbehaviour, distractor fingers,
/// finger triples, a second PERC) through the Engine, with light checks answered by the
/// simulated light sensor through a sequential checker; scores PERC 1 of each case.
struct AccuracyBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accuracy",
        abstract: "Recognition accuracy over seeded random placements (correct / wrong-trace / missed).",
        discussion: """
        Each case sets one PERC (half standard, half scalene/obtuse/near-equilateral) down at
        a random pose among 0–3 fingers (half of them near it, some moving), sometimes with a
        finger triple in its pattern inside its time window, sometimes with a second PERC set
        down just before; the hardware model is complete (onset spread, single touches,
        scanline pairs, flicker, ghosts, BLE latency, light misses and spontaneous flips).
        Light checks are drawn by the LightCheck scheduler (default) or, with
        --checker sequential, by a one-candidate-at-a-time checker as the thesis did, and
        answered by the simulated light sensor.

        A case is wrong-trace when, after its time window, the PERC is reported tracked with
        a trace its markers did not make; correct when it ends tracked with only its own
        traces and a pose within 5 mm; missed otherwise. Time to recognised runs from the
        field-on notification's arrival to the first frame it is tracked with its own traces.

        Examples:
          swift build -c release && .build/release/percbridge bench accuracy
          percbridge bench accuracy --cases 2000 --seed 9
          percbridge bench accuracy --checker sequential
        """
    )

    @Option(help: "Number of seeded placements (at least 1).")
    var cases: Int = 10_000

    @Option(help: "Seed of the placement generator.")
    var seed: UInt64 = 1

    enum Checker: String, ExpressibleByArgument, CaseIterable { case lightcheck, sequential }

    @Option(help: "Who draws the light checks: lightcheck (the LightCheck scheduler) or sequential.")
    var checker: Checker = .lightcheck

    @Option(help: "Play only the case with this index and print PERC 1's events against the truth.")
    var show: Int?

    func validate() throws {
        guard cases >= 1 else { throw ValidationError("--cases must be at least 1") }
    }

    private enum Verdict { case correct, wrongTrace, missed }

    func run() throws {
        #if DEBUG
        print("warning: a debug build; run `swift build -c release && .build/release/percbridge bench accuracy` for speed")
        #endif
        var generator = PlacementGenerator(seed: seed)
        if let show {
            var c = generator.next()
            while c.index < show { c = generator.next() }
            let (verdict, after, reduced) = play(c, log: true)
            print("case \(show): \(verdict), recognised after \(after.map { "\($0)" } ?? "-"), reduced touches: \(reduced)")
            return
        }
        var latency = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        var counts: [String: Int] = [:]
        var missedReduced = 0
        var wrongExamples: [Int] = []
        for _ in 0..<cases {
            let c = generator.next()
            let (verdict, recognisedAfter, reduced) = play(c)
            switch verdict {
            case .correct: counts["correct", default: 0] += 1
            case .wrongTrace: counts["wrong", default: 0] += 1; if wrongExamples.count < 10 { wrongExamples.append(c.index) }
            case .missed: counts["missed", default: 0] += 1; if reduced { missedReduced += 1 }
            }
            if let r = recognisedAfter { _ = latency.record(UInt64(max(0, r) * 1_000_000)) }
        }
        func pct(_ n: Int) -> String { String(format: "%d (%.2f%%)", n, 100 * Double(n) / Double(cases)) }
        print("bench accuracy: \(cases) placements, seed \(seed), full hardware model, light checks by \(checker.rawValue) in the simulator")
        print("correct      \(pct(counts["correct"] ?? 0))")
        print("wrong-trace  \(pct(counts["wrong"] ?? 0))   target < 0.1%")
        print("missed       \(pct(counts["missed"] ?? 0))   of them \(missedReduced) with fewer than three marker touches at placement")
        print(String(format: "field-on → recognised: p50 %.0f ms, p95 %.0f ms, max %.0f ms (n = %d)",
                     Double(latency.valueAtPercentile(50)) / 1000, Double(latency.valueAtPercentile(95)) / 1000,
                     Double(latency.max) / 1000, latency.totalCount))
        if !wrongExamples.isEmpty { print("wrong-trace case indices (seed \(seed)): \(wrongExamples)") }
    }

    /// Plays one case; returns the verdict, seconds from field-on to recognised, and whether
    /// the placement made fewer than three marker touches.
    private func play(_ c: PlacementGenerator.Case, log: Bool = false) -> (Verdict, Seconds?, Bool) {
        guard var runner = try? ScenarioRunner(c.scenario) else { return (.missed, nil, false) }
        var engine = Engine(config: EngineConfig(), definitions: runner.world.definitions)
        var sequential = SequentialLightChecker()
        var scheduler = LightCheckScheduler()
        var outcomes: [VerificationOutcome] = []
        var wrong = false
        var recognisedAt: Seconds?
        let window = engine.config.timeWindow
        let id = c.tangible
        func ownTrace(_ tr: TraceID) -> Bool {
            guard let s = engine.table.summary(tr), let contact = runner.world.truth.contacts[s.contactID],
                  case .marker(let t, _) = contact.maker else { return false }
            return t == id
        }
        var last: EngineOutput?
        while !runner.isFinished {
            let frame = runner.nextFrame()
            let out = engine.step(frame, outcomes: outcomes)
            switch checker {
            case .sequential:
                let (o, overlay) = sequential.step(frame, needs: out.needs)
                outcomes = o
                if let overlay { runner.present(overlay, at: frame.time) }
            case .lightcheck:
                let plan = scheduler.plan(needs: out.needs, frame: frame)
                outcomes = plan.outcomes
                if plan.overlayChanged { runner.present(plan.overlay, at: frame.time) }
            }
            last = out
            if log {
                for e in frame.sensorEvents where e.tangible == id && e.kind == .light {
                    print(String(format: "%.3f light %d", frame.time, e.value))
                }
                if checker == .lightcheck, scheduler.overlay.patches.contains(where: { $0.tangible == id }) {
                    let sensor = runner.world.trueSensorPosition(of: id)
                    let ps = scheduler.overlay.patches.map { p in
                        "\(p.tangible):\(p.purpose):\(p.colour):" + (sensor.map { String(format: "%.0fmm", p.center.distance(to: $0)) } ?? "-")
                    }
                    print(String(format: "%.3f overlay %d ", frame.time, Int(scheduler.overlay.id)) + ps.joined(separator: " "))
                }
                for e in out.events where e.tangible == id { print(String(format: "%.3f ", e.time) + "\(e.event)") }
                for n in out.needs where n.tangible == id {
                    print(String(format: "%.3f need ", frame.time) + "\(n.request) \(n.kind) " + n.hypotheses.map { "\($0.traces)" }.joined(separator: " "))
                }
            }
            guard let r = out.tangible(id), r.state == .tracked || r.state == .resting,
                  let arrival = runner.world.truth.placement(of: id)?.fieldOnArrival else { continue }
            let own = r.traces.allSatisfy(ownTrace)
            if !own && r.state == .tracked && frame.time > arrival + window + 0.02 { wrong = true }
            if own && r.state == .tracked && !r.traces.isEmpty && recognisedAt == nil { recognisedAt = frame.time - arrival }
        }
        let placement = runner.world.truth.placement(of: id)
        if log {
            print("truth: \(String(describing: placement))")
            for (cid, contact) in runner.world.truth.contacts.sorted(by: { $0.key < $1.key }) {
                let traces = (last?.tangibles.flatMap(\.traces) ?? []) + (last?.freeTraces.map(\.id) ?? [])
                let mine = traces.filter { engine.table.summary($0)?.contactID == cid }
                print("contact \(cid) \(contact.maker) began \(contact.began) ended \(contact.ended.map { "\($0)" } ?? "-") ghost \(contact.ghostSince.map { "\($0)" } ?? "-") traces \(mine)")
            }
        }
        let reduced = (placement?.touchingMarkers.count ?? 3) < 3
        if wrong { return (.wrongTrace, nil, reduced) }
        guard let r = last?.tangible(id), r.state == .tracked || r.state == .resting, r.traces.allSatisfy(ownTrace),
              let pose = r.pose, let truth = runner.world.truePose(of: id), pose.position.distance(to: truth.position) <= 5 else {
            return (.missed, nil, reduced)
        }
        return (.correct, recognisedAt, reduced)
    }
}
