// Scenario tests in the simulator: a locate need (a PERC that made one touch) finds the pose light can tell.
import Foundation
import Testing
import MTKTangibles
import MTKSimulator
@testable import LightCheck
import LightCheckRig

@Suite struct LocateScenarioTests {
    static let step = 2.0 * Double.pi / 180

    /// Every pose of the standard PERC with marker `k` on its marker `m`'s touch, in 2° steps,
    /// relative to its true pose (as the engine's locate need offers them); hypothesis id
    /// = k × 180 + step.
    static func poses(touching m: Int) -> [Pose] {
        let markers = TangibleDefinition.standardPerc(id: 1, name: "perc").markers
        var out: [Pose] = []
        for k in markers.indices {
            for s in 0..<180 {
                let angle = Double(s) * step
                out.append(Pose(position: markers[m] - markers[k].rotated(by: angle), angle: angle))
            }
        }
        return out
    }

    func run(seed: UInt64, touching m: Int, model: HardwareModel = HardwareModel(), withdrawAt: Seconds? = nil)
        -> (LightCheckRig<LightCheckScheduler>, VerificationOutcome?) {
        var world = SimWorld(seed: seed, model: model)
        world.add(TangibleDefinition.standardPerc(id: 1, name: "perc"))
        world.place(1, at: Pose(position: Vec2(300, 250), angle: 0.7))
        let check = RigCheck(tangible: 1, request: 7, kind: .locate, relativePoses: Self.poses(touching: m), trueIndex: m * 180, from: 0.5)
        var rig = LightCheckRig(world: world, planner: LightCheckScheduler(), checks: [check])
        while rig.outcome(of: 7) == nil && rig.now < 8 {
            if let w = withdrawAt, rig.now >= w { rig.withdrawn.insert(7) }
            rig.step()
        }
        return (rig, rig.outcome(of: 7))
    }

    /// Marker 2's sensor circle (25 mm) is its own: the located pose is the true one. The
    /// search stops at 95% confidence within 1.5 mm of the sensor, and a missed answer can
    /// still mislead it now and then, so over eight placements: at least seven are located
    /// with every marker within 5 mm (as `bench accuracy` scores), none with another marker
    /// on the touch, each within 3 s.
    @Test func theSensorOnItsOwnCircleGivesTheTruePose() {
        let markers = TangibleDefinition.standardPerc(id: 1, name: "perc").markers
        var right = 0
        for seed in 1...8 as ClosedRange<UInt64> {
            let (_, outcome) = run(seed: seed, touching: 2)
            guard case .confirmed(let h)? = outcome?.result else {
                Issue.record("seed \(seed): not confirmed: \(String(describing: outcome))")
                continue
            }
            #expect(h / 180 == 2, "seed \(seed): marker \(h / 180) put on the touch")
            #expect((outcome?.time ?? 99) < 3.5, "seed \(seed): took until \(outcome?.time ?? -1) s")
            let truth = Self.poses(touching: 2)[360], found = Self.poses(touching: 2)[h]
            if markers.allSatisfy({ found.apply($0).distance(to: truth.apply($0)) <= 5 }) { right += 1 }
        }
        #expect(right >= 7, "\(right) of 8 within 5 mm")
    }

    /// A sensor that never answers (dead, or the touch is a finger's) confirms nothing.
    @Test func aSilentSensorConfirmsNothing() {
        var model = HardwareModel()
        model.lightMissProbability = 1
        let (_, outcome) = run(seed: 4, touching: 2, model: model)
        if case .confirmed? = outcome?.result { Issue.record("confirmed with no answer: \(String(describing: outcome))") }
    }

    /// A need the engine withdraws ends its search: no outcome, its patches go, and the
    /// withdrawal is counted.
    @Test func aWithdrawnLocateEndsWithoutAnOutcome() {
        let (rig, outcome) = run(seed: 5, touching: 2, withdrawAt: 0.7)
        #expect(outcome == nil)
        #expect(rig.planner.diagnostics.withdrawnNeeds == 1)
        #expect(rig.planner.overlay.patches.isEmpty)
        #expect(rig.planner.activeRequest(of: 1) == nil)
    }

    /// A calibration the user asks for takes the sensor from a running locate search.
    @Test func aCalibrationTakesTheSensorFromALocateSearch() {
        var world = SimWorld(seed: 6)
        let def = TangibleDefinition.standardPerc(id: 1, name: "perc")
        world.add(def)
        let pose = Pose(position: Vec2(300, 250), angle: 0.7)
        world.place(1, at: pose)
        let check = RigCheck(tangible: 1, request: 7, kind: .locate, relativePoses: Self.poses(touching: 2), trueIndex: 360, from: 0.5)
        var rig = LightCheckRig(world: world, planner: LightCheckScheduler(), checks: [check])
        rig.run(until: 0.6)
        #expect(rig.planner.activeRequest(of: 1) == 7)
        let started = rig.planner.startCalibration(CalibrationRequest(tangible: 1, pose: pose, footprint: def.footprint), at: rig.now)
        #expect(started)
        #expect(rig.planner.activeRequest(of: 1) == nil)
        rig.run(until: 1.0)
        #expect(rig.planner.overlay.patches.allSatisfy { $0.purpose == .calibration })
    }

    // MARK: A locate that starts again (`locateMemory`)

    /// Every pose of the standard PERC with one of its markers on a touch at `q` (in its true
    /// pose's frame), in 2° steps: id = k × 180 + step.
    static func poses(around q: Vec2) -> [Pose] {
        let markers = TangibleDefinition.standardPerc(id: 1, name: "perc").markers
        return markers.indices.flatMap { k in
            (0..<180).map { s in
                let angle = Double(s) * step
                return Pose(position: q - markers[k].rotated(by: angle), angle: angle)
            }
        }
    }

    /// For each setting in `settings`, the time its placements (`seeds`) took to be located
    /// in all, from when the locate was asked; each must be confirmed with marker 2 (the true
    /// one, hypotheses 360–539) on the touch. `run` plays one and returns its outcome and when
    /// the locate was asked.
    static func timeToLocate<K: Hashable>(_ settings: [K], seeds: ClosedRange<UInt64>,
                                          _ run: (UInt64, K) -> (outcome: VerificationOutcome?, asked: Seconds)) -> [K: Seconds] {
        var took: [K: Seconds] = [:]
        for setting in settings {
            took[setting] = 0
            for seed in seeds {
                let r = run(seed, setting)
                guard let o = r.outcome, case .confirmed(let h) = o.result else {
                    Issue.record("\(setting), seed \(seed): \(String(describing: r.outcome))")
                    continue
                }
                #expect(h / 180 == 2, "\(setting), seed \(seed): hypothesis \(h) (marker \(h / 180) on the touch, or another touch's)")
                took[setting]! += o.time - r.asked
            }
        }
        return took
    }

    /// A locate around the PERC's marker 2 touch (trace 10), and around `alsoAround`'s touches
    /// (trace 12), runs from 0.5 s until `firstEnds` (then it is withdrawn) or until it is
    /// decided; a second locate (request 8) is asked at once with `second`'s poses. Returns
    /// both outcomes and when the second was asked.
    func restarted(seed: UInt64, memory: Seconds, firstEnds: Seconds?, alsoAround: Vec2? = nil, liftedBetween: Bool = false,
                   second: [(pose: Pose, trace: UInt64)], trueIndex: Int?)
        -> (first: VerificationOutcome?, second: VerificationOutcome?, asked: Seconds) {
        var world = SimWorld(seed: seed)
        world.add(TangibleDefinition.standardPerc(id: 1, name: "perc"))
        world.place(1, at: Pose(position: Vec2(300, 250), angle: 0.7))
        var config = LightCheckConfig()
        config.locateMemory = memory
        let touch = TangibleDefinition.standardPerc(id: 1, name: "perc").markers[2]
        let also = alsoAround.map { Self.poses(around: $0) } ?? []
        let first = RigCheck(tangible: 1, request: 7, kind: .locate, relativePoses: Self.poses(around: touch) + also, trueIndex: 360,
                             from: 0.5, hypothesisTraces: Array(repeating: [10], count: 540) + also.map { _ in [12] })
        var rig = LightCheckRig(world: world, planner: LightCheckScheduler(config: config), checks: [first])
        while rig.outcome(of: 7) == nil && rig.now < 6 && (firstEnds.map { rig.now < $0 } ?? true) { rig.step() }
        if rig.outcome(of: 7) == nil { rig.withdrawn.insert(7) }
        if liftedBetween {
            // Lifted and set down again at the same place: field off, then on.
            rig.world.lift(1)
            rig.run(until: rig.now + 0.2)
            rig.world.place(1, at: Pose(position: Vec2(300, 250), angle: 0.7))
            rig.run(until: rig.now + 0.2)
        }
        let asked = rig.now
        rig.checks.append(RigCheck(tangible: 1, request: 8, kind: .locate, relativePoses: second.map(\.pose), trueIndex: trueIndex,
                                   from: asked, hypothesisTraces: second.map { [$0.trace] }))
        while rig.outcome(of: 8) == nil && rig.now < asked + 6 { rig.step() }
        return (rig.outcome(of: 7), rig.outcome(of: 8), asked)
    }

    /// The engine asks the locate again when a lone touch joins it (or after an identify check
    /// of the PERC ran in between); the rounds shown so far still say where the sensor is.
    /// Six placements: withdrawn after 0.6 s of rounds, asked again with a finger's touch
    /// 72 mm away added. Going on from the rounds, each is located on its own touch with
    /// the true marker on it, and all six together take less time than starting from nothing.
    @Test func aLocateAskedAgainGoesOnFromItsRounds() {
        let markers = TangibleDefinition.standardPerc(id: 1, name: "perc").markers
        let second = Self.poses(around: markers[2]).map { ($0, UInt64(10)) } + Self.poses(around: Vec2(-60, 40)).map { ($0, UInt64(11)) }
        let took = Self.timeToLocate([0.0, 2.0], seeds: 1...6) { seed, memory in
            let r = restarted(seed: seed, memory: memory, firstEnds: 1.1, second: second, trueIndex: 360)
            #expect(r.first == nil, "seed \(seed): the first locate decided before it was withdrawn")
            return (r.second, r.asked)
        }
        print(String(format: "locate asked again: six placements decided in %.2f s from nothing, %.2f s going on from the rounds",
                     took[0]!, took[2]!))
        #expect(took[2]! < 0.8 * took[0]!)
    }

    /// A PERC lifted between the two locates may be set down anywhere: its field events make
    /// the scheduler forget the rounds, and the second locate runs as it would from nothing
    /// (the same outcome at the same time as with `locateMemory` 0).
    @Test func aLiftForgetsTheRounds() {
        let markers = TangibleDefinition.standardPerc(id: 1, name: "perc").markers
        let second = Self.poses(around: markers[2]).map { ($0, UInt64(10)) }
        for seed in 1...3 as ClosedRange<UInt64> {
            let kept = restarted(seed: seed, memory: 2, firstEnds: 1.1, liftedBetween: true, second: second, trueIndex: 360)
            let none = restarted(seed: seed, memory: 0, firstEnds: 1.1, liftedBetween: true, second: second, trueIndex: 360)
            #expect(kept.second != nil, "seed \(seed): undecided")
            #expect(kept.second == none.second, "seed \(seed): \(String(describing: kept.second)) vs \(String(describing: none.second))")
        }
    }

    /// A locate around the PERC's touch and a finger's finds the sensor on the PERC's touch
    /// (where poses with another marker on it put it too, the engine rests that touch: bench
    /// accuracy seed 1 case 6056), and the engine asks again around the finger only, whose
    /// poses pass 4 mm from the sensor. The rounds still say where the sensor is, and no pose
    /// of the new locate is there: it rejects them all, and confirms none. (A first version
    /// weighed only the new poses with the rounds: the nearest took the mass, and bench
    /// accuracy seed 1 case 6056 was located on the finger.) Starting from nothing, the
    /// locate around the finger confirmed a pose 4 mm off the sensor on 4 of the 6 seeds:
    /// discs that small cannot tell 4 mm apart in a few noisy rounds.
    @Test func roundsThatFoundTheSensorElsewhereConfirmNone() {
        // A finger touch 34.4 mm from the sensor: the poses with marker 2 (30.4 mm from the
        // sensor) on it put the sensor 4 mm from where it is.
        let finger = Vec2(5, -34.4)
        let second = Self.poses(around: finger).map { ($0, UInt64(12)) }
        var rejected: [Seconds: Int] = [0: 0, 2: 0], confirmed: [Seconds: Int] = [0: 0, 2: 0]
        for memory in [0.0, 2.0] {
            for seed in 1...6 as ClosedRange<UInt64> {
                let r = restarted(seed: seed, memory: memory, firstEnds: nil, alsoAround: finger, second: second, trueIndex: nil)
                guard case .confirmed(let h)? = r.first?.result, h < 540 else {
                    Issue.record("memory \(memory), seed \(seed): the first locate ended \(String(describing: r.first))")
                    continue
                }
                if case .confirmed? = r.second?.result { confirmed[memory, default: 0] += 1 }
                if case .rejected? = r.second?.result { rejected[memory, default: 0] += 1 }
            }
        }
        print("locate around the finger after the sensor was found: rejected \(rejected[0]!) / confirmed \(confirmed[0]!) of 6 from nothing, "
              + "rejected \(rejected[2]!) / confirmed \(confirmed[2]!) going on from the rounds")
        #expect(confirmed[2] == 0)
        #expect(rejected[2] == 6)
    }

    /// A locate ends on an answer: the sensor flipped under its probe. Its patches go when it
    /// decides, and the sensor follows that a few frames later. An identify check of the
    /// same PERC asked at once, whose one hypothesis lies 100 mm away (the sensor is not
    /// there), must not take that flip for its answer (`quietAfterLocate`): `bench accuracy
    /// --seed 7 --show 752` once confirmed a finger triangle that way, 41 ms after a locate
    /// placed the PERC in a trial variant of the engine. Sixteen placements: none is
    /// confirmed; without the setting (as a recording made before it reads it) some are.
    @Test func aCheckAskedRightAfterALocateIsNotAnsweredByItsPatchesGoing() throws {
        func confirmedWrong(seed: UInt64, quiet: Bool) -> Bool {
            var world = SimWorld(seed: seed)
            world.add(TangibleDefinition.standardPerc(id: 1, name: "perc"))
            world.place(1, at: Pose(position: Vec2(300, 250), angle: 0.7))
            var config = LightCheckConfig()
            config.quietAfterLocate = quiet
            let locate = RigCheck(tangible: 1, request: 7, kind: .locate, relativePoses: Self.poses(touching: 2), trueIndex: 360, from: 0.5)
            var rig = LightCheckRig(world: world, planner: LightCheckScheduler(config: config), checks: [locate])
            while rig.outcome(of: 7) == nil && rig.now < 6 { rig.step() }
            let asked = rig.now
            rig.checks.append(RigCheck(tangible: 1, request: 8, kind: .identify, relativePoses: [Pose(position: Vec2(100, 0), angle: 0)],
                                       trueIndex: nil, from: asked, hypothesisTraces: [[20, 21, 22]]))
            while rig.outcome(of: 8) == nil && rig.now < asked + 3 { rig.step() }
            if case .confirmed? = rig.outcome(of: 8)?.result { return true }
            return false
        }
        let seeds = 1...16 as ClosedRange<UInt64>
        let quiet = seeds.filter { confirmedWrong(seed: $0, quiet: true) }
        let loud = seeds.filter { confirmedWrong(seed: $0, quiet: false) }
        print("identify asked right after a locate, confirmed on a place 100 mm off: \(quiet.count) of 16 with quietAfterLocate, \(loud.count) without")
        #expect(quiet.isEmpty, "seeds \(quiet)")
        #expect(!loud.isEmpty)
        let old = try JSONDecoder().decode(LightCheckConfig.self, from: Data("{\"patchRadius\": 4}".utf8))
        #expect(!old.quietAfterLocate && LightCheckConfig().quietAfterLocate)
    }

    /// A locate asked while its PERC's sensor is quiet after another check's patches went (the
    /// engine's identify check of a finger triangle, ended or withdrawn) starts its rounds at
    /// once (`locateInQuiet`); a flip in the quiet voids its round, as it does a check's.
    /// Before, its discs waited the quiet out. Eight placements, a one-hypothesis check 100 mm
    /// off withdrawn while its round shows and a locate asked in the same frame: each is
    /// located with its own marker on the touch either way, and all eight together sooner.
    @Test func aLocateAfterACheckDoesNotWaitOutTheQuiet() throws {
        func run(seed: UInt64, inQuiet: Bool) -> (outcome: VerificationOutcome?, asked: Seconds) {
            var world = SimWorld(seed: seed)
            world.add(TangibleDefinition.standardPerc(id: 1, name: "perc"))
            world.place(1, at: Pose(position: Vec2(300, 250), angle: 0.7))
            var config = LightCheckConfig()
            config.locateInQuiet = inQuiet
            let identify = RigCheck(tangible: 1, request: 6, kind: .identify, relativePoses: [Pose(position: Vec2(100, 0), angle: 0)],
                                    trueIndex: nil, from: 0.5, hypothesisTraces: [[20, 21, 22]])
            var rig = LightCheckRig(world: world, planner: LightCheckScheduler(config: config), checks: [identify])
            rig.run(until: 0.75)
            rig.withdrawn.insert(6)
            let asked = rig.now
            rig.checks.append(RigCheck(tangible: 1, request: 7, kind: .locate, relativePoses: Self.poses(touching: 2), trueIndex: 360,
                                       from: asked))
            while rig.outcome(of: 7) == nil && rig.now < asked + 6 { rig.step() }
            return (rig.outcome(of: 7), asked)
        }
        let took = Self.timeToLocate([true, false], seeds: 1...8) { seed, inQuiet in run(seed: seed, inQuiet: inQuiet) }
        print(String(format: "locate right after a check: eight placements located in %.2f s starting in the quiet, %.2f s waiting it out",
                     took[true]!, took[false]!))
        #expect(took[true]! < took[false]!)
        let old = try JSONDecoder().decode(LightCheckConfig.self, from: Data("{\"patchRadius\": 4}".utf8))
        #expect(!old.locateInQuiet && LightCheckConfig().locateInQuiet)
    }

    /// A replay is one frame's work: over the largest locate a config allows (8 touches,
    /// 0.5° steps: 17,280 poses) plus 8 earlier touches' positions, 48 rounds with 16 discs
    /// each would be 26 million distances. Only the newest rounds that fit
    /// `maxReplayWork` are weighed and carried on.
    @Test func aReplayIsBoundedToTheNewestRoundsThatFit() {
        let markers = TangibleDefinition.standardPerc(id: 1, name: "perc").markers
        func hypotheses(touches: ClosedRange<Int>) -> [Hypothesis] {
            touches.flatMap { t in
                let touch = Vec2(Double(t) * 100, 0)
                return markers.indices.flatMap { k in
                    (0..<720).map { s in
                        let angle = Double(s) * Double.pi / 360
                        let pose = Pose(position: touch - markers[k].rotated(by: angle), angle: angle)
                        return Hypothesis(id: t * 10_000 + k * 720 + s, pose: pose, sensorPosition: pose.apply(Vec2(5, 0)), traces: [UInt64(t)])
                    }
                }
            }
        }
        let need = { (touches: ClosedRange<Int>, request: UInt64) in
            VerificationNeed(tangible: 1, request: request, kind: .locate, hypotheses: hypotheses(touches: touches), footprint: .circle(radius: 30))
        }
        let earlier = CalibrationSearch(locate: need(0...7, 1), at: 0, settings: .locateDefaults, margin: 5)
        let lk = FlipLikelihood.make(window: 0.15, config: LightCheckConfig())
        let rounds = (0..<48).map { k in
            CalibrationSearch.LocateEvidence(probe: .init(center: Vec2(Double(k), 0), radius: 4),
                                             decoys: Array(repeating: earlier.decoys[0], count: 16),
                                             flipped: k % 2 == 0, likelihood: lk, at: Double(k) * 0.01)
        }
        var search = CalibrationSearch(locate: need(7...14, 2), at: 1, settings: .locateDefaults, margin: 5)
        search.replay(evidence: rounds, groups: earlier.touchGroups)
        let cells = 8 * 3 * 720 + 7 * 3 * 720  // its own, and the 7 earlier touches it does not search
        #expect(search.touchGroups.count == 15)
        #expect(!search.evidence.isEmpty && search.evidence.count < 48)
        #expect(search.evidence.count * 17 * cells <= CalibrationSearch.maxReplayWork)
        #expect(search.evidence.last?.at == rounds.last?.at, "the newest rounds are kept")
    }
}
