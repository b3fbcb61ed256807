// `percbridge-bench predict`: predicted tangible poses (hello `predict_ms`) against the simulator's truth.
import ArgumentParser
import Foundation
import MTKTangibles
import MTKSimulator
import PercRuntime
import PercWeb

/// Plays the simulator's scenarios with moving tangibles through the service's core (engine
/// and light checks, overlays presented at the simulated display's next refresh) and, for
/// every frame in which a tangible is moving, compares with where it truly is `--ahead` ms
/// later: the pose the WebSocket `frame` carries (no prediction) and its `predicted` pose.
struct PredictBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predict",
        abstract: "Error of predicted tangible poses at a look-ahead vs no prediction, on the simulator's moving scenarios.",
        discussion: """
        A sample is a frame in which a tangible has a pose and truly moves (over 1 mm in the \
        look-ahead). Error = distance (mm) from the tangible's true position `--ahead` ms \
        after the frame time to: the frame's pose (baseline), and pose + velocity × look-ahead \
        (what `predicted` says, the same code as the WebSocket frame).

        Example:
          swift build -c release && .build/release/percbridge-bench predict --ahead 30
        """
    )

    @Option(help: "Look-ahead in ms (1…\(AppLookahead.maxMS)).") var ahead = 30
    @Option(help: "Frame rate of the simulated run (Hz).") var rate = 120.0
    @Option(parsing: .upToNextOption, help: "Scenarios to play (default: the built-in ones with moving tangibles).")
    var scenarios: [String] = ["demo", "shapes", "ghost-touch-moving", "flicker-recovery"]

    func validate() throws {
        guard (1...AppLookahead.maxMS).contains(ahead) else { throw ValidationError("--ahead must be 1…\(AppLookahead.maxMS) ms") }
        guard (10...1000).contains(rate) else { throw ValidationError("--rate must be 10…1000 Hz") }
        for s in scenarios where BuiltInScenarios.named(s) == nil {
            throw ValidationError("no built-in scenario \"\(s)\"; known: \(BuiltInScenarios.names.joined(separator: ", "))")
        }
    }

    func run() throws {
        let dt = Double(ahead) / 1000
        var none: [Double] = [], predicted: [Double] = []
        for name in scenarios {
            let scenario = BuiltInScenarios.named(name)!
            var table = try SimulatedTable(scenario, frameRate: rate)
            var n0: [Double] = [], n1: [Double] = []
            // Looping scenarios (demo) are played once.
            while !table.isOver {
                let (frame, result, _) = table.step()
                let runner = table.runner
                let wire = AppWire.FrameMessage(result.snapshot, aheadMS: ahead)
                for (t, w) in zip(result.snapshot.tangibles, wire.tangibles) {
                    guard let pose = t.pose, let p = w.predicted,
                          let now = runner.world.truePose(of: t.id, at: frame.time),
                          let later = runner.world.truePose(of: t.id, at: frame.time + dt),
                          later.position.distance(to: now.position) > 1 else { continue }
                    n0.append(pose.position.distance(to: later.position))
                    n1.append(Vec2(p.x, p.y).distance(to: later.position))
                }
            }
            print("  \(name): \(n0.count) moving samples; no prediction \(Self.describe(n0)); predicted \(Self.describe(n1))")
            none += n0; predicted += n1
        }
        guard !none.isEmpty else { print("no moving samples"); return }
        print("look-ahead \(ahead) ms, \(none.count) samples: no prediction \(Self.describe(none)); predicted \(Self.describe(predicted)); "
              + "mean error ratio \(String(format: "%.2f", Self.mean(predicted) / Self.mean(none)))")
    }

    static func mean(_ v: [Double]) -> Double { v.reduce(0, +) / Double(max(v.count, 1)) }
    static func describe(_ v: [Double]) -> String {
        guard !v.isEmpty else { return "-" }
        let s = v.sorted()
        func q(_ p: Double) -> Double { s[min(s.count - 1, Int(Double(s.count - 1) * p))] }
        return String(format: "mean %.2f, p50 %.2f, p95 %.2f mm", mean(v), q(0.5), q(0.95))
    }
}
