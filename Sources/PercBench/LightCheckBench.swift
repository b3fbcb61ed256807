// `percbridge-bench lightcheck`: group-testing light checks against the thesis's one-at-a-time checks.
import ArgumentParser
import Histogram
import LightCheck
import LightCheckRig
import MTKTangibles
import MTKSimulator

/// Runs seeded simulated cases (HARDWARE-MODEL.md latencies and error rates) through the
/// LightCheck scheduler and, on the same seeds in the same run, through a sequential
/// one-candidate-at-a-time scheduler as the thesis describes it; prints both side by side.
struct LightCheckBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lightcheck",
        abstract: "Compare the light-check scheduler with sequential checking, in the simulator.",
        discussion: """
        Each case places standard PERCs in a seeded simulated world and asks for one identify \
        check per tangible with k candidate positions (2: hypotenuse tuple, 4: leg tuple, \
        8: leg tuple plus a finger pair). Light sensors answer 1–4 display frames after a \
        change plus one BLE connection interval, miss 3% of changes and flip on their own at \
        0.5%/s. Time runs from the need to the outcome. "outside" counts patch frames drawn \
        where the true tangible does not cover them (the user could see them).

        Examples:
          swift build -c release && .build/release/percbridge-bench lightcheck
          percbridge-bench lightcheck --cases 500 --seed 7
          percbridge-bench lightcheck --sequential-wait 0.5
        """
    )

    @Option(help: "Seeded cases per row (at least 1).")
    var cases: Int = 2000

    @Option(help: "First seed; case n uses seed + n.")
    var seed: UInt64 = 1

    @Option(help: "How long the sequential scheduler waits on each candidate (s).")
    var sequentialWait: Double = 0.3

    @Option(help: "Give up on a case after this long (s of simulated time).")
    var limit: Double = 6

    func validate() throws {
        guard cases >= 1 else { throw ValidationError("--cases must be at least 1") }
        guard sequentialWait > 0, sequentialWait.isFinite else { throw ValidationError("--sequential-wait must be a positive number of seconds") }
        guard limit > 0.5, limit.isFinite else { throw ValidationError("--limit must exceed 0.5 s") }
    }

    func run() throws {
        print("bench lightcheck: \(cases) cases per row, seeds \(seed)...\(seed + UInt64(cases) - 1), sequential wait \(sequentialWait) s")
        print(BenchRow.header)
        let rows: [(String, Int, Int)] = [("k=2", 2, 1), ("k=4", 4, 1), ("k=8", 8, 1), ("2 tangibles k=4", 4, 2)]
        for (name, k, tangibles) in rows {
            let group = runGroup(k: k, tangibles: tangibles, motion: nil, config: LightCheckConfig())
            let sequential = runSequential(k: k, tangibles: tangibles)
            print(group.line(name, "group"))
            print(sequential.line(name, "sequential"))
            print(BenchRow.ratio(name, group, sequential))
        }
        print("\nmoving tangible (k=2, 40 mm/s for 1.5 s from 0.4 s): predicted positions vs waiting until it stops")
        print(BenchRow.header)
        var predict = LightCheckConfig(); predict.movingStrategy = .predict
        var wait = LightCheckConfig(); wait.movingStrategy = .wait
        let moving = (speed: 40.0, duration: 1.5)
        let p = runGroup(k: 2, tangibles: 1, motion: moving, config: predict)
        let w = runGroup(k: 2, tangibles: 1, motion: moving, config: wait)
        print(p.line("moving k=2", "predict"))
        print(w.line("moving k=2", "wait"))
        print(BenchRow.ratio("moving k=2", p, w))
    }

    /// A standard rig, optionally moving tangible 1 in a seeded direction.
    private func rig<P: LightCheckPlanning>(_ n: Int, k: Int, tangibles: Int, planner: P,
                                            motion: (speed: Double, duration: Double)?) -> LightCheckRig<P> {
        var rig = LightCheckRig.standard(seed: seed + UInt64(n), k: k, tangibles: tangibles, planner: planner)
        if let motion {
            rig.run(until: 0.4)
            var rng = SimRandom(seed: seed + UInt64(n) + 77)
            let a = rng.uniform(0, 2 * Double.pi)
            let start = LightCheckRig<P>.standardPose(of: 1).position
            let goal = start + Vec2(1, 0).rotated(by: a) * (motion.speed * motion.duration)
            rig.world.move(1, through: [goal], duration: motion.duration)
        }
        return rig
    }

    private func runGroup(k: Int, tangibles: Int, motion: (speed: Double, duration: Double)?, config: LightCheckConfig) -> BenchRow {
        var row = BenchRow()
        var learned: [TangibleID: LatencyModel] = [:]
        for n in 0..<cases {
            var scheduler = LightCheckScheduler(config: config)
            for (id, m) in learned { scheduler.setLatencyModel(m, for: id) }
            var r = rig(n, k: k, tangibles: tangibles, planner: scheduler, motion: motion)
            r.run(until: limit, untilDecided: true)
            row.add(r)
            for id in 1...tangibles { learned[id] = r.planner.latencyModel(for: id) }
        }
        return row
    }

    private func runSequential(k: Int, tangibles: Int) -> BenchRow {
        var row = BenchRow()
        for n in 0..<cases {
            var r = rig(n, k: k, tangibles: tangibles, planner: SequentialLightCheck(wait: sequentialWait), motion: nil)
            r.run(until: limit, untilDecided: true)
            row.add(r)
        }
        return row
    }
}

/// The figures of one scheduler over one row's cases.
struct BenchRow {
    var confirmTimes = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
    var checks = 0, right = 0, wrong = 0, inconclusive = 0, rejected = 0, undecided = 0
    var patchFrames = 0, outsideFrames = 0, outsidePatches = 0, caseCount = 0

    mutating func add<P>(_ rig: LightCheckRig<P>) {
        caseCount += 1
        patchFrames += rig.patchFrames
        outsideFrames += rig.outsidePatchFrames
        outsidePatches += rig.outsidePatchIDs.count
        for c in rig.checks {
            checks += 1
            let o = rig.outcome(of: c.request)
            switch c.score(o?.result) {
            case .confirmedRight: right += 1
            case .confirmedWrong: wrong += 1
            case .inconclusive: inconclusive += 1
            case .rejectedWrong, .rejectedRight: rejected += 1
            case .undecided: undecided += 1
            }
            if let o, case .confirmed = o.result {
                _ = confirmTimes.record(UInt64(max(0, (o.time - c.from) * 1_000_000).rounded()))
            }
        }
    }

    var median: Double { Double(confirmTimes.valueAtPercentile(50)) / 1000 }
    var p95: Double { Double(confirmTimes.valueAtPercentile(95)) / 1000 }
    var mean: Double { confirmTimes.mean / 1000 }

    static let header = "row              scheduler   median ms  p95 ms  mean ms  checks  right  wrong  inconcl  rejected  undecided  outside patch-frames/case (share)  outside patches/case"

    func line(_ row: String, _ name: String) -> String {
        let share = patchFrames > 0 ? 100 * Double(outsideFrames) / Double(patchFrames) : 0
        return pad(row, 17) + pad(name, 12) + lpad(fmt(median), 9) + lpad(fmt(p95), 8) + lpad(fmt(mean), 9) + lpad("\(checks)", 8)
            + lpad("\(right)", 7) + lpad("\(wrong)", 7) + lpad("\(inconclusive)", 9) + lpad("\(rejected)", 10)
            + lpad("\(undecided)", 11) + lpad(fmt(Double(outsideFrames) / Double(max(caseCount, 1))) + " (" + fmt(share) + "%)", 36)
            + lpad(fmt(Double(outsidePatches) / Double(max(caseCount, 1))), 22)
    }

    static func ratio(_ row: String, _ a: BenchRow, _ b: BenchRow) -> String {
        "\(row): median ratio \(fmt(a.median / max(b.median, 1e-9)))x, p95 ratio \(fmt(a.p95 / max(b.p95, 1e-9)))x, "
            + "mean ratio \(fmt(a.mean / max(b.mean, 1e-9)))x, wrong \(a.wrong) vs \(b.wrong)"
    }
}

private func fmt(_ x: Double) -> String {
    guard x.isFinite else { return "-" }
    let scaled = (x * 100).rounded() / 100
    return "\(scaled)"
}
private func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
private func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? " " + s : String(repeating: " ", count: n - s.count) + s }

/// The thesis's way (3.3.2): one candidate at a time, probe under it and decoys under the
/// others, a flip confirms it, silence for a fixed long wait moves on to the next; two passes
/// over all candidates, then inconclusive. Draws every candidate, wherever it lies.
struct SequentialLightCheck: LightCheckPlanning {
    struct Check { var need: VerificationNeed; var index = 0; var pass = 0; var since: Seconds }
    let wait: Seconds
    var radius = 4.0
    var passes = 2
    private var checks: [TangibleID: Check] = [:]
    private var colours: [TangibleID: LightColour] = [:]
    private var decided: Set<UInt64> = []
    private var overlay = Overlay.empty
    private var patchIDs: [Int: Int] = [:]

    init(wait: Seconds) { self.wait = wait }

    mutating func plan(needs: [VerificationNeed], frame: Frame) -> LightCheckPlan {
        let time = frame.time
        var outcomes: [VerificationOutcome] = []
        for e in frame.sensorEvents where e.kind == .light {
            let c = LightColour(sensorValue: e.value)
            let old = colours[e.tangible]
            colours[e.tangible] = c
            guard old != nil, old != c, let check = checks[e.tangible], time > check.since else { continue }
            let h = check.need.hypotheses[check.index].id
            outcomes.append(VerificationOutcome(tangible: e.tangible, request: check.need.request, result: .confirmed(hypothesis: h), time: time))
            decided.insert(check.need.request)
            checks[e.tangible] = nil
        }
        let wanted = Dictionary(needs.map { ($0.tangible, $0) }, uniquingKeysWith: { a, _ in a })
        for t in checks.keys.sorted() where wanted[t]?.request != checks[t]?.need.request { checks[t] = nil }
        for t in wanted.keys.sorted() {
            guard let need = wanted[t], !decided.contains(need.request), !need.hypotheses.isEmpty else { continue }
            if checks[t] == nil { checks[t] = Check(need: need, since: time) } else { checks[t]!.need = need }
            if time - checks[t]!.since >= wait {
                checks[t]!.index += 1
                checks[t]!.since = time
                if checks[t]!.index >= need.hypotheses.count { checks[t]!.index = 0; checks[t]!.pass += 1 }
                if checks[t]!.pass >= passes {
                    outcomes.append(VerificationOutcome(tangible: t, request: need.request, result: .inconclusive, time: time))
                    decided.insert(need.request)
                    checks[t] = nil
                }
            }
        }
        var patches: [Patch] = []
        for t in checks.keys.sorted() {
            guard let check = checks[t] else { continue }
            let current = colours[t] ?? .black
            for (n, h) in check.need.hypotheses.enumerated() {
                let key = Int(check.need.request) * 64 + h.id
                if patchIDs[key] == nil { patchIDs[key] = patchIDs.count + 1 }
                let probe = n == check.index
                patches.append(Patch(id: patchIDs[key]!, tangible: t, center: h.sensorPosition, radius: radius,
                                     colour: probe ? current.opposite : current, purpose: probe ? .probe : .decoy))
            }
        }
        let changed = patches != overlay.patches
        if changed { overlay = Overlay(id: overlay.id + 1, patches: patches) }
        return LightCheckPlan(overlay: overlay, overlayChanged: changed, outcomes: outcomes, calibrations: [])
    }
}
