// A verifying candidate whose marker touch drops out goes on with the touch that comes back (a successor).

import Testing
@testable import MTKTangibles
@testable import MTKSimulator

@Suite("successors during a light check")
struct SuccessorTests {
    /// The hypotenuse tuple (two hypotheses, one light check), with marker 1's touch dropping
    /// out for 6 touch frames at `dropout` s and coming back as a new contact; the simulated
    /// light sensor answers 1 s after the request, so the check is still open then.
    func run(dropout: Seconds?) -> EngineRun {
        var scenario = BuiltInScenarios.tuple("hypotenuse-dropout", touches: [1, 2], "hypotenuse tuple, marker 1 drops out mid-check")
        if let dropout {
            scenario.steps.insert(BuiltInScenarios.step(dropout, .flicker(.init(tangible: 1, marker: 1, frames: 6))), at: 1)
        }
        var run = EngineRun(scenario)
        run.answerDelay = 1.0
        run.run(until: 3.0)
        return run
    }

    @Test("the successor keeps the hypothesis id, so the answer to the request still confirms it")
    func successorKeepsTheCheck() throws {
        // Where the check starts without a drop-out (the scenario is seeded: always the same).
        let plain = run(dropout: nil)
        let first = try #require(plain.outputs.first { !$0.needs.isEmpty })
        let request = try #require(first.needs.first { $0.kind == .identify })
        #expect(request.hypotheses.count == 2)
        #expect(plain.last.tangible(1)?.state == .tracked)

        // The same placement with marker 1's touch dropping out 0.2 s into the check.
        let dropped = run(dropout: first.time + 0.2)
        let needs = dropped.outputs.flatMap(\.needs).filter { $0.request == request.request }
        let before = try #require(needs.first)
        let right = try #require(before.hypotheses.first { h in h.traces.allSatisfy { dropped.maker($0) == 1 } && h.traces.count == 2 })
        let original = Set(right.traces)
        // Later views of the same request: the right hypothesis, same id, on a new trace.
        let successor = needs.last { need in
            need.hypotheses.contains { $0.id == right.id && !Set($0.traces).isSubset(of: original) }
        }?.hypotheses.first { $0.id == right.id }
        let s = try #require(successor, "no successor of hypothesis \(right.id) in request \(request.request)")
        #expect(s.traces.allSatisfy { dropped.maker($0) == 1 }, "the successor's traces are the PERC's own")
        #expect(Set(s.traces).intersection(original).count == 1, "one trace kept, the dropped one replaced")
        #expect(s.sensorPosition.distance(to: right.sensorPosition) < 1.5)
        let asked = Set(dropped.outputs.flatMap(\.needs).filter { $0.kind == .identify }.map(\.request))
        #expect(asked == [request.request], "no new request was needed")

        // The answer (to the first request, naming the id seen then) confirms the PERC on its own traces.
        let t = try #require(dropped.last.tangible(1))
        #expect(t.state == .tracked)
        #expect(t.provenance == .confirmed)
        #expect(!t.traces.isEmpty && t.traces.allSatisfy { dropped.maker($0) == 1 })
        #expect(t.traces.contains { !original.contains($0) }, "it holds the touch that came back")
    }
}
