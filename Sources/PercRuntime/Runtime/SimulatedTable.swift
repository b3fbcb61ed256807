// A scenario played through the service's frame core faster than real time (benchmarks, tests).
import LightCheck
import MTKTangibles
import MTKSimulator
import PercSystem

/// A scenario's frames stepped through `EngineCore` (the service's frame core) as fast as the
/// machine goes, each overlay drawn ~2 ms after its frame and on screen at the simulated
/// display's next refresh, as `demo` draws it. `bench crowded`, `bench predict` and the tests
/// play the table this way and read the truth from `runner.world`.
public struct SimulatedTable {
    public private(set) var runner: ScenarioRunner
    public private(set) var core: EngineCore
    /// The scenario's length (a looping scenario is played once).
    public let duration: Seconds

    public init(_ scenario: Scenario, frameRate: Double, engine: EngineConfig = EngineConfig(),
                lightChecks: LightCheckConfig = LightCheckConfig()) throws {
        runner = try ScenarioRunner(scenario, frameRate: frameRate)
        core = EngineCore(definitions: runner.world.definitions, engine: engine, lightChecks: lightChecks)
        duration = scenario.duration
    }

    /// Whether the scenario has been played to its end.
    public var isOver: Bool { runner.now >= duration }

    /// One frame: the frame, the core's result, and how long the core's step took (s).
    public mutating func step() -> (frame: Frame, result: FrameResult, stepTime: Seconds) {
        let frame = runner.nextFrame()
        let t0 = MonotonicClock.now()
        let result = core.step(frame)
        let stepTime = max(0, MonotonicClock.now() - t0)
        if let overlay = result.overlay { runner.presentAtNextRefresh(overlay, after: frame.time) }
        return (frame, result, stepTime)
    }
}
