// `percbridge bench accuracy` scaled down through the CLI: the verdicts add up, the stricter
// score and the warm-latency steady state are there, bad options are refused. The cases shown
// with --show were found when the bench cut fixed frames and showed overlays at their frame's
// time, and are replayed so (--timing frames).
import Foundation
import Testing
import PercTestSupport

@Suite struct AccuracyBenchTests {
    /// The counts of one run: correct, unresolved (placed), wrong-trace and missed cases.
    func counts(_ out: String) -> [String: Int] {
        var c: [String: Int] = [:]
        for line in out.split(separator: "\n") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count >= 2, ["correct", "unresolved", "wrong-trace", "missed"].contains(String(words[0])), let n = Int(words[1]) else { continue }
            c[String(words[0])] = n
        }
        return c
    }

    @Test func aScaledDownRunAddsUpColdAndWarm() throws {
        for extra in [[], ["--warm-latency"]] {
            let run = try CLI.run(["bench", "accuracy", "--cases", "60", "--seed", "1"] + extra)
            #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
            let c = counts(run.stdout)
            #expect(c.count == 4 && c.values.reduce(0, +) == 60, "every case has one verdict: \(run.stdout)")
            #expect((c["correct"] ?? 0) >= 50, "most of 60 placements are recognised: \(run.stdout)")
            #expect(run.stdout.contains("PERC 1's learned latency carried from case to case") == !extra.isEmpty, "\(run.stdout)")
        }
    }

    /// Seed 1, case 21: a near-equilateral PERC whose best fit on one sample is a wrong
    /// turn. It is only correct when its turn is right (every marker within 5 mm). The
    /// touches' mean positions pick the turn two frames after the triple appears (a window
    /// guess); with `turnJitter` off, light picked it (`lightConfirmed`).
    @Test func aNearEquilateralPlacementIsScoredByItsTurn() throws {
        let run = try CLI.run(["bench", "accuracy", "--seed", "1", "--show", "21", "--timing", "frames"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("reason: MTKTangibles.TransitionReason.windowGuess"), "the means picked the turn: \(run.stdout)")
        #expect(run.stdout.contains("case 21: correct"), "\(run.stdout)")
    }

    /// The bench scores PERC 1 of each case; another PERC of the case tracked on a trace not
    /// its own is a swap the scored one may not show (seed 1, case 6740: PERC 1 is right; case
    /// 3542 was the example until `otherWindowsFirst` ended its swap). The case says so, and
    /// the summary counts such cases (none in the first 60).
    @Test func anotherPercOnAWrongTraceIsCounted() throws {
        let one = try CLI.run(["bench", "accuracy", "--seed", "1", "--show", "6740", "--timing", "frames"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout.contains("case 6740: correct"), "\(one.stdout)")
        #expect(one.stdout.contains("; another PERC of the case was tracked on a trace not its own"), "\(one.stdout)")
        let clean = try CLI.run(["bench", "accuracy", "--seed", "1", "--show", "68", "--timing", "frames"])
        #expect(!clean.stdout.contains("another PERC of the case"), "\(clean.stdout)")
        let run = try CLI.run(["bench", "accuracy", "--seed", "1", "--cases", "60"])
        #expect(run.stdout.contains("\nanother PERC of the case tracked on a trace not its own: 0 cases\n"), "\(run.stdout)")
    }

    /// `--show` says where each finger touched against the scored PERC's true markers. Seed 7,
    /// case 6534: a standard PERC with one marker touching, and a finger put down 54.1 mm from
    /// its centre that moves. Drawn as before 2026-11-28 (`--fingers-anywhere`), it slid under
    /// the PERC to 1.5 mm from marker 0, which did not touch, and light confirmed the pair of
    /// the touch and the finger (wrong-trace). Now the finger moves the other way, off the PERC,
    /// and the case ends unresolved (the lone touch, placed).
    @Test func showSaysWhereEachFingerTouched() throws {
        let before = try CLI.run(["bench", "accuracy", "--seed", "7", "--show", "6534", "--fingers-anywhere", "--timing", "frames"])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout.contains("contact 2 finger(100) began 0.6996666666666667 ended - ghost - traces [2] at (52.9, 84.5), 54.1 mm from the PERC's centre, 40.1 mm from its marker 0; last at (80.5, 111.8), 15.5 mm from the PERC's centre, 1.5 mm from its marker 0"), "\(before.stdout)")
        #expect(before.stdout.contains("case 6534: wrongTrace"), "\(before.stdout)")
        // A marker's contact line has no such figures.
        let marker = before.stdout.split(separator: "\n").first { $0.hasPrefix("contact 1 marker(") }
        #expect(marker != nil && !marker!.contains("mm from"), "\(before.stdout)")

        let now = try CLI.run(["bench", "accuracy", "--seed", "7", "--show", "6534", "--timing", "frames"])
        #expect(now.status == 0, "\(now.stderr)")
        #expect(now.stdout.contains("traces [2] at (52.9, 84.5), 54.1 mm from the PERC's centre, 40.1 mm from its marker 0; last at (25.5, 60.7), 90.4 mm from the PERC's centre"), "\(now.stdout)")
        #expect(now.stdout.contains("case 6534: unresolved"), "\(now.stdout)")
    }

    /// Seed 1 case 99: each candidate is offered to light once (`hypothesesOnce`), so the
    /// first check of the near-equilateral PERC's turns confirms its turn instead of ending
    /// inconclusive on two hypotheses at one place and starting again. (The check before it,
    /// request …297, asked about its first pair at once and was withdrawn when the third
    /// touch made the triple.)
    @Test func aCheckIsNotRestartedOnTwinHypotheses() throws {
        let run = try CLI.run(["bench", "accuracy", "--seed", "1", "--show", "99", "--timing", "frames"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("checkAnswered(request: 4294967298, result: MTKTangibles.VerificationOutcome.Result.confirmed(hypothesis: 0))"), "\(run.stdout)")
        #expect(!run.stdout.contains("inconclusive"), "\(run.stdout)")
        #expect(run.stdout.contains("case 99: correct"), "\(run.stdout)")
    }

    /// Seed 7 case 5344: the PERC's one marker touch began 0.38 s after its field-on, past its
    /// time window; it is searched all the same (`lateTouchReach`) and the PERC is placed on
    /// it, where before no check was asked and it was missed.
    @Test func aLoneTouchPastTheWindowIsSearched() throws {
        try expectShown(seed: 7, index: 5344, ["kind: MTKTangibles.VerificationNeed.Kind.locate",
                                               "tracesAssigned([2], reason: MTKTangibles.TransitionReason.placedUnresolved)",
                                               "case 5344: unresolved"])
    }

    /// Seed 2 case 1003: a finger down 0.63 s before the field-on made pairs with the PERC's
    /// second marker touch that ranked first; cut at `maxHypotheses`, the PERC's own pair was
    /// offered in one frame of six and its checks ended inconclusive. With
    /// `windowTouchesFirst` the pairs of the window's touches go first: confirmed at 1.067 s.
    @Test func pairsWithAnOldFingerDoNotCrowdOutThePercsOwn() throws {
        try expectShown(seed: 2, index: 1003, ["1.067 checkAnswered(request: 4294967297, result: MTKTangibles.VerificationOutcome.Result.confirmed(hypothesis: 1))",
                                               "case 1003: correct"])
    }

    /// Seed 2 case 1660: two PERCs set down together, each check with a hypothesis a few mm
    /// from the other's place; every flip of either sensor was explained for "none" by the
    /// other's patches and both checks ended inconclusive after 14 answers. With
    /// `occupiedPlaces` a patch on a place its check holds (after an unexplained answer there)
    /// explains no "none": both confirmed. Since `pairsYieldToOthersTriples` PERC 1 is no longer
    /// offered the pairs of PERC 2's triple: both are confirmed sooner (0.950 → 0.908 s, PERC 2
    /// 1.075 → 0.925 s).
    @Test func twoChecksNearEachOtherDoNotHoldEachOtherUp() throws {
        try expectShown(seed: 2, index: 1660, ["0.908 checkAnswered(request: 4294967297, result: MTKTangibles.VerificationOutcome.Result.confirmed(hypothesis: 0))",
                                               "0.925 [PERC 2] checkAnswered(request: 8589934593, result: MTKTangibles.VerificationOutcome.Result.confirmed(hypothesis: 0))",
                                               "case 1660: correct"])
    }

    /// `--show` prints the other PERC of the case too, each line marked `[PERC 2]`, and the
    /// overlay while any patch shows. Seed 2 case 439: PERC 2, set down first, is confirmed on
    /// its pair at 0.875 s (at 2.225 s on its triple before staggered probes and taking turns,
    /// while PERC 1's check probed PERC 2's place: docs/recognition.md, "Two checks on one
    /// place: who goes first"), and PERC 1, one touch, is placed unresolved (missed before);
    /// the overlay shows PERC 2's patches (`2:`).
    @Test func showPrintsTheOtherPerc() throws {
        try expectShown(seed: 2, index: 439, ["0.558 [PERC 2] transition(from: MTKTangibles.TangibleStateName.inRange, to: MTKTangibles.TangibleStateName.onSurface, reason: MTKTangibles.TransitionReason.fieldOn)",
                                              "0.875 [PERC 2] tracesAssigned([2, 1], reason: MTKTangibles.TransitionReason.lightConfirmed)",
                                              " 2:probe:", "case 439: unresolved"])
    }

    /// Staggered probes through the CLI (docs/lightcheck.md "Staggered probes"): seed 1 case
    /// 1, two marker touches. PERC 1's round shows its first probe set (two poses, at 25 and 7
    /// mm) with decoys at 32 mm and on its own place; ~90 ms later, the round still running
    /// with no answer, the decoy at 32 mm turns to the probe colour (and after it the one on
    /// its own place). The sensor answers and PERC 1 is confirmed on its own pair.
    /// (Case 6811 showed it until pairs were asked about at once: it is a window guess now.)
    @Test func aDecoyTurnsToAProbeWithinTheRound() throws {
        try expectShown(seed: 1, index: 1, ["0.792 overlay 11 1:probe:white:25mm r3 1:probe:white:7mm r3 1:decoy:black:32mm r3 1:decoy:black:0mm r3",
                                            "0.800 overlay 12 1:probe:white:26mm r3 1:probe:white:7mm r3 1:probe:white:32mm r3 1:decoy:black:1mm r3",
                                            "0.933 light 1", "0.942 checkAnswered(request: 4294967297, result: MTKTangibles.VerificationOutcome.Result.confirmed(hypothesis: 3))",
                                            "case 1: correct"])
    }

    /// The summary's latency table by pattern and marker touches names every class it saw.
    @Test func theSummaryBreaksLatencyDownByPattern() throws {
        let run = try CLI.run(["bench", "accuracy", "--seed", "1", "--cases", "60"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("field-on → recognised of correct cases by pattern and marker touches at placement:"), "\(run.stdout)")
        for pattern in ["standard, 3", "scalene, 3", "obtuse, 3", "near-equilateral, 3"] {
            #expect(run.stdout.contains("  \(pattern) "), "\(pattern): \(run.stdout)")
        }
        // Where the tail lies against p95 ≤ 350 ms: the situations' cases add up to the correct
        // ones, and their counts over 350 ms to the total.
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let head = try #require(lines.firstIndex { $0.hasPrefix("field-on → recognised over 350 ms: ") }, "\(run.stdout)")
        let total = Int(lines[head].split(separator: " ")[6])
        var cases = 0, over = 0
        for line in lines[(head + 1)...].prefix(while: { $0.hasPrefix("  ") }) {
            let words = line.split(separator: " ")
            // "… N cases, p50 … ms, p95 … ms, over 350 ms O" and, when O > 0, " e.g. [case, …]".
            let i = try #require(words.firstIndex(of: "cases,"), "\(line)")
            let j = try #require(words.lastIndex(of: "350"), "\(line)")
            let (n, o) = (try #require(Int(words[i - 1]), "\(line)"), try #require(Int(words[j + 2]), "\(line)"))
            #expect((o > 0) == line.contains(" e.g. ["), "slow cases are named when there are any: \(line)")
            cases += n; over += o
        }
        #expect(cases == counts(run.stdout)["correct"], "\(run.stdout)")
        #expect(over == total, "\(run.stdout)")
        // And where those slow cases spent their time: every one is counted once, in the
        // three phases of a check of its own or as recognised without one.
        let phases = try #require(lines.firstIndex { $0.hasPrefix("where the correct cases over 350 ms spent their time: ") }, "\(run.stdout)")
        let words = lines[phases].split(separator: " ")
        let without = try #require(Int(words[words.firstIndex(of: "time:")! + 1]), "\(lines[phases])")
        let other = try #require(Int(words[words.firstIndex(of: "other")! + 1].dropLast()), "\(lines[phases])")
        #expect(without + other == total, "\(lines[phases])")
        // All of them, then by situation: each block its count and rounds, then its three phases.
        #expect(lines[phases + 1].hasPrefix("  all (\(other)): rounds per case "), "\(run.stdout)")
        var bySituation = 0
        var block = phases + 1
        while block < lines.count, lines[block].hasPrefix("  "), lines[block].contains("): rounds per case ") {
            for (k, name) in ["field-on → first need", "need → its first patch in the overlay", "first patch → recognised"].enumerated() {
                #expect(lines[block + 1 + k].hasPrefix("    " + name) && lines[block + 1 + k].contains(" mean "), "\(run.stdout)")
            }
            if block > phases + 1, let open = lines[block].lastIndex(of: "("), let close = lines[block].lastIndex(of: ")"),
               let n = Int(lines[block][lines[block].index(after: open)..<close]) {
                bySituation += n
            }
            block += 4
        }
        #expect(bySituation == other, "the situations' slow cases add up to all of them: \(run.stdout)")
        // The bound on the tail follows the phases: it counts the two-touch placements and
        // names the table's round lengths.
        let bound = try #require(lines.firstIndex { $0.hasPrefix("a bound on the tail: ") }, "\(run.stdout)")
        let twoTouch = run.stdout.split(separator: "\n").first { $0.hasPrefix("  2 touches:") }
        #expect(twoTouch != nil && lines[bound].contains(" correct two-touch placements, first identify need p50 "), "\(run.stdout)")
        #expect(lines[bound + 1].contains("with rounds of 67 ms answered and 118 ms silent (the table's means)"), "\(lines[bound + 1])")
        #expect(lines[bound + 2].contains(" a p95 of 350 ms allows"), "\(lines[bound + 2])")
    }

    /// Seed 1, case 104: a standard PERC that made one touch (marker 2). The locate need is
    /// printed once, as its touches with their pose counts; light finds the sensor and the
    /// PERC is tracked `located`, every marker within 5 mm.
    @Test func aOneTouchPlacementIsLocated() throws {
        try expectShown(seed: 1, index: 104, ["locate [2]×540", "reason: MTKTangibles.TransitionReason.located", "case 104: correct"])
    }

    /// `bench accuracy --seed S --show N` succeeds and prints each of `lines`.
    func expectShown(seed: Int, index: Int, _ lines: [String]) throws {
        let run = try CLI.run(["bench", "accuracy", "--seed", "\(seed)", "--show", "\(index)", "--timing", "frames"])
        #expect(run.status == 0, "\(run.stderr)")
        for line in lines { #expect(run.stdout.contains(line), "\(line): \(run.stdout)") }
    }

    /// Seed 1, case 187: a finger triangle in the PERC's pattern lay there first and was the
    /// window guess; the PERC's own triple was complete 100 ms after the field-on. Two
    /// triples fit, so the guess is withdrawn and light asked then (0.767 s), not at the
    /// window's end (0.867 s); light takes the PERC's own traces.
    @Test func rivalTriplesInTheWindowAreCheckedAtOnce() throws {
        let run = try CLI.run(["bench", "accuracy", "--seed", "1", "--show", "187", "--timing", "frames"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        func time(_ needle: String) -> Double? {
            lines.first { $0.contains(needle) }.flatMap { Double($0.split(separator: " ")[0]) }
        }
        let fieldOn = try #require(time("reason: MTKTangibles.TransitionReason.fieldOn"), "\(run.stdout)")
        let asked = try #require(time("checkRequested("), "\(run.stdout)")
        #expect(asked < fieldOn + 0.2, "light is asked inside the window: field-on \(fieldOn), asked \(asked)")
        #expect(try #require(time("reason: MTKTangibles.TransitionReason.guessWithdrawn")) <= asked)
        #expect(run.stdout.contains("tracesAssigned([9, 7, 8], reason: MTKTangibles.TransitionReason.lightConfirmed)"), "\(run.stdout)")
        #expect(run.stdout.contains("case 187: correct"), "\(run.stdout)")
    }

    @Test func badOptionsAreRefused() throws {
        let none = try CLI.run(["bench", "accuracy", "--cases", "0"])
        #expect(none.status != 0 && none.stderr.contains("--cases must be at least 1"), "\(none.stderr)")
        let seed = try CLI.run(["bench", "accuracy", "--seed", "-3"])
        #expect(seed.status != 0 && !seed.stderr.isEmpty, "\(seed.stderr)")
        for (arg, says) in [("nope=1", "--hardware: unknown hardware setting 'nope'; valid settings: touchSampleRate"),
                            ("displayFrameRate", "expected key=value"),
                            ("displayFrameRate=fast", "\"fast\" is not a number"),
                            ("displayFrameRate=0", "displayFrameRate must be above 0")] {
            let bad = try CLI.run(["bench", "accuracy", "--cases", "1", "--hardware", arg])
            #expect(bad.status != 0 && bad.stderr.contains(says), "\(arg): \(bad.stderr)")
            #expect(!bad.stdout.contains("bench accuracy:"), "nothing is played: \(bad.stdout)")
        }
    }

    /// `--timing serve` (the default) plays the cases as `serve` and an app time them: frames
    /// cut on sensor notifications and overlays on screen at the display's next refresh;
    /// `--timing frames` as the bench did before 2026-12-02 (overlays at their frame's time).
    /// The two are different runs of the same placements, and the header says which.
    @Test func theTimingIsChosenAndSaid() throws {
        let serve = try CLI.run(["bench", "accuracy", "--cases", "200", "--seed", "1"])
        let frames = try CLI.run(["bench", "accuracy", "--cases", "200", "--seed", "1", "--timing", "frames"])
        #expect(serve.status == 0 && frames.status == 0, "\(serve.stderr)\n\(frames.stderr)")
        #expect(serve.stdout.contains("frames cut on sensor events and overlays shown at the display's next refresh (as serve)"), "\(serve.stdout)")
        #expect(frames.stdout.contains("fixed 120 Hz frames and overlays shown at their frame's time (--timing frames)"), "\(frames.stdout)")
        #expect(counts(serve.stdout).values.reduce(0, +) == 200 && counts(frames.stdout).values.reduce(0, +) == 200)
        #expect(serve.stdout.split(separator: "\n").dropFirst() != frames.stdout.split(separator: "\n").dropFirst(),
                "the same figures under both timings: \(serve.stdout)")
        let bad = try CLI.run(["bench", "accuracy", "--cases", "1", "--timing", "fast"])
        #expect(bad.status != 0 && bad.stderr.contains("serve") && bad.stderr.contains("frames"), "\(bad.stderr)")
    }

    /// The p95 line of a run.
    func p95(_ out: String) -> Double? {
        guard let line = out.split(separator: "\n").first(where: { $0.hasPrefix("field-on → recognised: ") }),
              let r = line.range(of: "p95 ") else { return nil }
        return Double(line[r.upperBound...].prefix(while: { $0.isNumber }))
    }

    /// `--hardware` changes the simulated table and the scheduler is set up for it as `serve`
    /// is (light_checks.display_refresh_hz): on a 120 Hz display the sensor answers sooner
    /// and a silent round ends sooner, so the same placements are recognised sooner.
    @Test func aFasterDisplayIsMeasured() throws {
        let base = try CLI.run(["bench", "accuracy", "--cases", "300", "--seed", "2"])
        let fast = try CLI.run(["bench", "accuracy", "--cases", "300", "--seed", "2", "--hardware", "displayFrameRate=120"])
        #expect(base.status == 0 && fast.status == 0, "\(base.stderr)\n\(fast.stderr)")
        #expect(fast.stdout.contains("full hardware model but displayFrameRate = 120.0,"), "\(fast.stdout)")
        #expect(base.stdout.contains("seed 2, full hardware model, light checks"), "\(base.stdout)")
        let (b, f) = (try #require(p95(base.stdout)), try #require(p95(fast.stdout)))
        #expect(f < b - 20, "p95 \(b) ms at 60 Hz, \(f) ms at 120 Hz")
        #expect(counts(fast.stdout)["wrong-trace"] == 0, "\(fast.stdout)")
    }
}
