// `percbridge-bench crowded`: 16 PERCs and 20 fingers through the service's core, scored against the simulator's truth.
import ArgumentParser
import Foundation
import Histogram
import MTKTangibles
import MTKSimulator
import PercSystem
import PercRuntime

/// Plays the built-in `crowded` scenario (or another) once per seed through the service's
/// frame core (engine and light checks; overlays presented at the simulated display's next
/// refresh, as the demo does) faster than real time, and counts per tangible-frame against
/// the truth: poses within 5 mm of their own tangible (correct), poses on another
/// tangible's place (swapped: must be 0), tangibles on the surface over 1 s with no pose;
/// and the core's step time per frame (p50, p99, max).
struct CrowdedBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crowded",
        abstract: "A crowded table (16 PERCs, 20 fingers): correct and swapped tangible-frames, step time p99.",
        discussion: """
        Example:
          swift build -c release && .build/release/percbridge-bench crowded --seeds 32 1 2
        """
    )

    @Option(parsing: .upToNextOption, help: "Seeds to play the scenario with (its own is 32).") var seeds: [UInt64] = [32, 1, 2]
    @Option(help: "The scenario (built-in name).") var scenario = "crowded"
    @Option(help: "Frame rate of the simulated run (Hz).") var rate = 120.0
    @Option(help: "Print the engine's events of this tangible id, and the frames its pose was swapped (first seed).") var log: Int?

    func validate() throws {
        guard BuiltInScenarios.named(scenario) != nil else {
            throw ValidationError("no built-in scenario \"\(scenario)\"; known: \(BuiltInScenarios.names.joined(separator: ", "))")
        }
        guard (10...1000).contains(rate) else { throw ValidationError("--rate must be 10…1000 Hz") }
        guard !seeds.isEmpty else { throw ValidationError("give at least one seed") }
    }

    func run() throws {
        #if DEBUG
        print("warning: a debug build; run `swift build -c release && .build/release/percbridge-bench crowded` for step times")
        #endif
        var total = PoseTruthCount()
        var allSteps = Histogram<UInt64>(highestTrackableValue: 10_000_000_000, numberOfSignificantValueDigits: .three)
        for seed in seeds {
            var s = BuiltInScenarios.named(scenario)!
            s.seed = seed
            var table = try SimulatedTable(s, frameRate: rate)
            var count = PoseTruthCount()
            var steps = Histogram<UInt64>(highestTrackableValue: 10_000_000_000, numberOfSignificantValueDigits: .three)
            var frames = 0
            var takenBy: [TangibleID: String] = [:]
            var swapsByWay: [String: Int] = [:]
            while !table.isOver {
                let (frame, result, stepTime) = table.step()
                let ns = UInt64(stepTime * 1e9)
                _ = steps.record(ns); _ = allSteps.record(ns)
                frames += 1
                let world = table.runner.world
                for e in table.core.lastOutput?.events ?? [] {
                    if case .transition(_, let to, let reason) = e.event, to == .tracked || to == .placed { takenBy[e.tangible] = "\(reason)" }
                    if log == e.tangible, seed == seeds[0] { print(String(format: "%.3f ", frame.time) + "\(e.event)") }
                }
                let swappedBefore = count.swappedBy
                count.add(result.snapshot.tangibles, at: frame.time) { world.truePose(of: $0) }
                for t in result.snapshot.tangibles where count.swappedBy[t.name] != swappedBefore[t.name] {
                    swapsByWay[takenBy[t.id] ?? "unknown", default: 0] += 1
                    if log == t.id, seed == seeds[0], swappedBefore[t.name] == nil {
                        print(String(format: "%.3f first swapped frame: pose (%.1f, %.1f), truth ", frame.time, t.pose?.position.x ?? 0, t.pose?.position.y ?? 0)
                              + (world.truePose(of: t.id).map { String(format: "(%.1f, %.1f)", $0.position.x, $0.position.y) } ?? "-"))
                    }
                }
                total.add(result.snapshot.tangibles, at: frame.time) { world.truePose(of: $0) }
            }
            print(Self.line("seed \(seed)", count, steps, frames: frames)
                  + (swapsByWay.isEmpty ? "" : "; swapped frames by how the tangible was taken: " + swapsByWay.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
        }
        print(Self.line("all", total, allSteps, frames: nil))
        print(total.swapped == 0 ? "swapped: none (goal: 0)" : "swapped: \(total.swapped) tangible-frames — FAIL (goal: 0)")
        if total.swapped > 0 { throw ExitCode(1) }
    }

    static func line(_ label: String, _ c: PoseTruthCount, _ steps: Histogram<UInt64>, frames: Int?) -> String {
        func us(_ p: Double) -> Double { Double(steps.valueAtPercentile(p)) / 1000 }
        return label + String(format: ": tangible-frames with a pose %d, correct %.2f%%, swapped %d, on the surface over 1 s without a pose %d of %d (%.2f%%); step time p50 %.0f µs, p99 %.0f µs, max %.0f µs",
                      c.poses, c.poses == 0 ? 0 : 100 * Double(c.correct) / Double(c.poses), c.swapped, c.unseen, c.onSurface,
                      c.onSurface == 0 ? 0 : 100 * Double(c.unseen) / Double(c.onSurface), us(50), us(99), Double(steps.max) / 1000)
            + (frames.map { " (\($0) frames)" } ?? "")
            + (c.swappedBy.isEmpty ? "" : "; swapped: " + c.swappedBy.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    }
}
