// `percbridge-bench engine`: per-frame Engine.step time against the thesis's all-triples matcher.

import ArgumentParser
import Foundation
import Histogram
import MTKTangibles
import PercSystem

/// Times `Engine.step` per frame over a grid of tangible and trace counts, and in the same
/// run the naive all-triples matcher of the thesis on the same frames; prints p50/p99 of
/// both and their ratio.
struct EngineBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine",
        abstract: "Per-frame engine step time for 1–32 tangibles and 10–400 traces, vs the naive matcher.",
        discussion: """
        Each cell is a seeded workload: all PERCs linked with the field on; three quarters \
        of them (as far as the traces allow) placed and sliding with 0.7 mm marker jitter, \
        one quarter searching without touches (so they search in every frame); light checks \
        are answered from the workload's truth on the next frame; the other traces are wandering fingers, 1 % of them lifted and put \
        down elsewhere per frame. The naive matcher (thesis 3.3: every triple and pair of \
        the available traces for every searching tangible, all six marker orders) runs on \
        the same frames with the engine's view of who holds which trace. It is stopped \
        after --naive-budget seconds per cell; its frame count is printed. Times are the \
        thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so other load on the machine does not \
        inflate them.

        Target: p99 under 200 µs at 16 tangibles / 60 traces, at least 20x faster than naive.

        Examples:
          swift build -c release && .build/release/percbridge-bench engine
          percbridge-bench engine --frames 500 --tangibles 16 --traces 60
          percbridge-bench engine --tangibles 16 --traces 60 --slowest 10 --memory
        """
    )

    @Option(help: "Measured frames per cell (after the warm-up placements).")
    var frames: Int = 2000

    @Option(help: "Seed of the workloads.")
    var seed: UInt64 = 1

    @Option(parsing: .upToNextOption, help: "Tangible counts (default 1 2 4 8 16 32).")
    var tangibles: [Int] = [1, 2, 4, 8, 16, 32]

    @Option(parsing: .upToNextOption, help: "Trace counts (default 10 30 60 100 200 400).")
    var traces: [Int] = [10, 30, 60, 100, 200, 400]

    @Option(help: "Wall-clock seconds the naive matcher may use per cell.")
    var naiveBudget: Double = 1.5

    @Option(help: "Print the N slowest engine frames of each cell (frame number, µs, contacts begun/ended).")
    var slowest: Int = 0

    @Flag(help: "Also run the first cell for --memory-frames frames and print the heap the engine holds.")
    var memory = false

    @Option(help: "Frames of the --memory run.")
    var memoryFrames: Int = 10_000

    func validate() throws {
        guard frames >= 10 else { throw ValidationError("--frames must be at least 10") }
        guard tangibles.allSatisfy({ (1...64).contains($0) }) else { throw ValidationError("--tangibles must be within 1...64") }
        guard traces.allSatisfy({ (1...2000).contains($0) }) else { throw ValidationError("--traces must be within 1...2000") }
        guard naiveBudget > 0 else { throw ValidationError("--naive-budget must be positive") }
        guard slowest >= 0 else { throw ValidationError("--slowest must not be negative") }
        guard memoryFrames >= 1 else { throw ValidationError("--memory-frames must be at least 1") }
    }

    func run() throws {
        #if DEBUG
        print("warning: a debug build; run `swift build -c release && .build/release/percbridge-bench engine` for real figures")
        #endif
        print("bench engine: \(frames) measured frames per cell, seed \(seed); thread CPU time per frame in µs")
        print(pad("tangibles", 10) + pad("traces", 8) + pad("placed", 8) + pad("fingers", 9)
              + pad("engine p50", 12) + pad("p99", 9) + pad("max", 9)
              + pad("naive p50", 12) + pad("p99", 10) + pad("frames", 8) + pad("p50 ratio", 11) + "p99 ratio")
        for t in tangibles {
            for n in traces {
                let r = cell(tangibles: t, traces: n)
                print(pad("\(t)", 10) + pad("\(n)", 8) + pad("\(r.placed)", 8) + pad("\(r.fingers)", 9)
                      + pad(us(r.engine.valueAtPercentile(50)), 12) + pad(us(r.engine.valueAtPercentile(99)), 9)
                      + pad(us(r.engine.max), 9)
                      + pad(us(r.naive.valueAtPercentile(50)), 12) + pad(us(r.naive.valueAtPercentile(99)), 10)
                      + pad("\(r.naiveFrames)", 8)
                      + pad(ratio(r.naive.valueAtPercentile(50), r.engine.valueAtPercentile(50)), 11)
                      + ratio(r.naive.valueAtPercentile(99), r.engine.valueAtPercentile(99)))
                for (frame, ns, begun, ended) in r.slowest {
                    print("    slow frame \(frame): \(us(ns)) µs, \(begun) contacts begun, \(ended) ended")
                }
            }
        }
        if memory { measureMemory(tangibles: tangibles[0], traces: traces[0]) }
    }

    /// The heap the engine holds after `memoryFrames` frames: malloc's bytes in use with the
    /// engine alive minus before it was made (the workload's frames are made before).
    private func measureMemory(tangibles: Int, traces: Int) {
        let w = EngineBenchWorkload(tangibles: tangibles, traces: traces, measured: memoryFrames, seed: seed)
        let config = EngineConfig()
        let before = HeapUsage.bytesInUse()
        var engine = Engine(config: config, definitions: w.definitions)
        var outcomes: [VerificationOutcome] = []
        var answered: Set<UInt64> = []
        for frame in w.frames {
            let out = engine.step(frame, outcomes: outcomes)
            outcomes = Self.answers(out, engine: engine, workload: w, answered: &answered, time: frame.time)
        }
        let after = HeapUsage.bytesInUse()
        let entrySize = MemoryLayout<TraceEntry>.stride
        print("memory (\(tangibles) tangibles, \(traces) traces, \(w.frames.count) frames, compress \(config.traces.compressTime) s, "
              + "delete \(config.traces.deletionTime) s, at most \(config.traces.maxEntriesPerTrace) entries per live trace):")
        print("  engine heap \(String(format: "%.2f", Double(after - before) / 1_048_576)) MiB; "
              + "\(engine.table.liveIDs.count) live traces, \(engine.table.historyCount) in history, "
              + "\(engine.table.storedEntryCount) stored entries × \(entrySize) B")
        withExtendedLifetime(engine) {}
    }

    /// Light-check answers from the workload's truth: the hypothesis whose traces are all the
    /// PERC's own markers is confirmed, else the check is rejected (each request once).
    private static func answers(_ out: EngineOutput, engine: Engine, workload w: EngineBenchWorkload,
                                answered: inout Set<UInt64>, time: Seconds) -> [VerificationOutcome] {
        var outcomes: [VerificationOutcome] = []
        for need in out.needs where answered.insert(need.request).inserted {
            let right = need.hypotheses.first { h in
                !h.traces.isEmpty && h.traces.allSatisfy { tr in
                    engine.table.summary(tr).flatMap { w.markerOwner[$0.contactID] } == need.tangible
                }
            }
            outcomes.append(VerificationOutcome(tangible: need.tangible, request: need.request,
                                                result: right.map { .confirmed(hypothesis: $0.id) } ?? .rejected, time: time))
        }
        return outcomes
    }

    private struct CellResult {
        var engine: Histogram<UInt64>
        var naive: Histogram<UInt64>
        var naiveFrames: Int
        var placed: Int
        var fingers: Int
        /// (frame number, ns, contacts begun, contacts ended), slowest first.
        var slowest: [(UInt64, UInt64, Int, Int)]
    }

    private func cell(tangibles: Int, traces: Int) -> CellResult {
        let w = EngineBenchWorkload(tangibles: tangibles, traces: traces, measured: frames, seed: seed)
        var engine = Engine(config: EngineConfig(), definitions: w.definitions)
        var naive = NaiveMatcher(tolerance: EngineConfig().tolerance)
        var eh = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        var nh = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        var naiveSpent: UInt64 = 0
        var naiveFrames = 0
        var sink = 0
        var outcomes: [VerificationOutcome] = []
        var answered: Set<UInt64> = []
        var times: [(UInt64, UInt64)] = []
        for (i, frame) in w.frames.enumerated() {
            let start = ThreadCPUClock.nanoseconds()
            let out = engine.step(frame, outcomes: outcomes)
            let took = ThreadCPUClock.nanoseconds() &- start
            outcomes = Self.answers(out, engine: engine, workload: w, answered: &answered, time: frame.time)
            guard i >= w.measuredFrom else { continue }
            _ = eh.record(took)
            if slowest > 0 { times.append((frame.number, took)) }
            guard Double(naiveSpent) < naiveBudget * 1e9 else { continue }
            // The engine's view of this frame, in contact ids, for the naive matcher.
            var held: Set<Int64> = []
            var tracked: [(TangibleDefinition, [Int64])] = []
            var searching: [TangibleDefinition] = []
            for (d, r) in zip(w.definitions, out.tangibles) {
                let contacts = r.traces.compactMap { engine.table.summary($0)?.contactID }
                held.formUnion(contacts)
                if r.state == .tracked { tracked.append((d, contacts)) } else if r.state == .onSurface || r.state == .placed { searching.append(d) }
            }
            let nStart = ThreadCPUClock.nanoseconds()
            naive.step(frame, held: held, searching: searching, tracked: tracked)
            let nTook = ThreadCPUClock.nanoseconds() &- nStart
            naiveSpent += nTook
            naiveFrames += 1
            sink &+= naive.fits
            _ = nh.record(nTook)
        }
        if sink == -1 { print("") }
        let slow = times.sorted { $0.1 > $1.1 }.prefix(slowest).map { f, ns in
            let contacts = w.frames[Int(f) - 1].contacts
            return (f, ns, contacts.filter { $0.phase == .begin }.count, contacts.filter { $0.phase == .end }.count)
        }
        return CellResult(engine: eh, naive: nh, naiveFrames: naiveFrames, placed: w.placed, fingers: w.fingers, slowest: slow)
    }

    private func us(_ ns: UInt64) -> String {
        let v = Double(ns) / 1000
        return v < 10 ? String(format: "%.2f", v) : v < 1000 ? String(format: "%.1f", v) : String(format: "%.0f", v)
    }

    private func ratio(_ a: UInt64, _ b: UInt64) -> String {
        b == 0 ? "-" : String(format: "%.1fx", Double(a) / Double(b))
    }

    private func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
}
