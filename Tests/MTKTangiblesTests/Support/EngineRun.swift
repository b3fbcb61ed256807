// Test driver: plays a simulator scenario through the Engine; a ground-truth oracle answers light checks.

@testable import MTKTangibles
@testable import MTKSimulator

/// Runs a built-in scenario frame by frame through `Engine`. Verification needs are
/// answered from the simulator's ground truth after `answerDelay` (a perfect light sensor:
/// the engine's logic is under test here, not the scheduler's).
struct EngineRun {
    var runner: ScenarioRunner
    var engine: Engine
    var outputs: [EngineOutput] = []
    var answerDelay: Seconds = 0.05
    /// Answer identify checks at all (false: the light sensor never answers).
    var answers = true
    private var pending: [(due: Seconds, outcome: VerificationOutcome)] = []
    private var asked: Set<UInt64> = []

    init(_ name: String, config: EngineConfig = EngineConfig()) {
        self.init(BuiltInScenarios.named(name)!, config: config)
    }

    init(_ scenario: Scenario, config: EngineConfig = EngineConfig()) {
        runner = try! ScenarioRunner(scenario)
        engine = Engine(config: config, definitions: runner.world.definitions)
    }

    var now: Seconds { runner.now }

    mutating func run(until end: Seconds) {
        while runner.now < end - 1e-9 {
            let frame = runner.nextFrame()
            let due = pending.filter { $0.due <= frame.time }.map(\.outcome)
            pending.removeAll { $0.due <= frame.time }
            let out = engine.step(frame, outcomes: due)
            outputs.append(out)
            for need in out.needs where !asked.contains(need.request) {
                asked.insert(need.request)
                if answers, let o = answer(need, at: frame.time) { pending.append((frame.time + answerDelay, o)) }
            }
        }
    }

    mutating func runToEnd() { run(until: runner.scenario.duration) }

    /// The contacts a tangible's markers made, as the engine's trace ids.
    func trueTraces(of tangible: TangibleID) -> Set<TraceID> {
        var out: Set<TraceID> = []
        for o in outputs {
            for t in o.tangibles { for tr in t.traces where maker(tr) == tangible { out.insert(tr) } }
            for f in o.freeTraces where maker(f.id) == tangible { out.insert(f.id) }
        }
        return out
    }

    /// Which tangible's marker made a trace (nil: a finger or unknown).
    func maker(_ trace: TraceID) -> TangibleID? {
        guard let s = engine.table.summary(trace), let c = runner.world.truth.contacts[s.contactID] else { return nil }
        if case .marker(let t, _) = c.maker { return t }
        return nil
    }

    /// Whether the trace is a marker touch that froze (ghost) at or before `time`.
    func isGhost(_ trace: TraceID) -> Bool {
        guard let s = engine.table.summary(trace), let c = runner.world.truth.contacts[s.contactID] else { return false }
        return c.ghostSince != nil
    }

    /// The state sequence of a tangible, without repeats.
    func states(of id: TangibleID) -> [TangibleStateName] {
        var seq: [TangibleStateName] = []
        for o in outputs { if let s = o.tangible(id)?.state, seq.last != s { seq.append(s) } }
        return seq
    }

    func transitions(of id: TangibleID) -> [(from: TangibleStateName, to: TangibleStateName, reason: TransitionReason)] {
        outputs.flatMap(\.events).compactMap { e in
            guard e.tangible == id, case .transition(let f, let t, let r) = e.event else { return nil }
            return (f, t, r)
        }
    }

    func events(of id: TangibleID) -> [TangibleEvent] {
        outputs.flatMap(\.events).filter { $0.tangible == id }.map(\.event)
    }

    var last: EngineOutput { outputs.last! }

    /// Pose error of the latest report against the true pose (distance mm, angle rad).
    func poseError(_ id: TangibleID) -> (Double, Double)? {
        guard let pose = last.tangible(id)?.pose, let truth = runner.world.truePose(of: id) else { return nil }
        return (pose.position.distance(to: truth.position), Pose.angleDistance(pose.angle, truth.angle))
    }

    private func answer(_ need: VerificationNeed, at time: Seconds) -> VerificationOutcome? {
        let world = runner.world
        guard world.isOnSurface(need.tangible), let sensor = world.trueSensorPosition(of: need.tangible) else {
            return VerificationOutcome(tangible: need.tangible, request: need.request, result: .rejected, time: time)
        }
        for h in need.hypotheses where h.sensorPosition.distance(to: sensor) < 4 {
            if need.kind == .identify && !h.traces.allSatisfy({ maker($0) == need.tangible }) { continue }
            return VerificationOutcome(tangible: need.tangible, request: need.request, result: .confirmed(hypothesis: h.id), time: time)
        }
        return VerificationOutcome(tangible: need.tangible, request: need.request, result: .rejected, time: time)
    }
}
