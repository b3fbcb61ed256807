// The diagnosis inside the running service: fed by the pipeline each frame, read by /diagnostics and /metrics.
import Foundation
import Logging
import LightCheck
import MTKTangibles
import Synchronization
import PercRuntime

/// Thread-safe holder of the service's `DiagnosticsCollector` and of an active light test.
/// The pipeline (its step observer) asks it before each step what a light test needs shown
/// — LightCheck's scheduler draws it — and feeds it after each step (under the pipeline's
/// lock); the web routes read reports and start light tests from other threads.
public final class LiveDiagnostics: StepObserver {
    private struct State: Sendable {
        var collector: DiagnosticsCollector
        var definitions: [TangibleDefinition]
        var lightTest: LightTestRun?
        var lastStatus: LightTestStatus?
        /// What the scheduler was last asked to show for a light test.
        var showing: TestPatchesRequest?
        /// When to look at the display's refresh again (gaps between presented reports), and
        /// the refresh rates already logged as differing from the configured one.
        var nextDisplayLook = 64
        var refreshesLogged: Set<Int> = []
    }

    private let state: Mutex<State>
    let source: String
    private let metrics: DiagnosticsMetrics?
    private let logger: Logger?
    private let displayRefreshHz: Double

    public init(definitions: [TangibleDefinition], settings: DiagnoseSettings = DiagnoseSettings(), source: String,
         metrics: DiagnosticsMetrics? = nil, logger: Logger? = nil) {
        state = Mutex(State(collector: DiagnosticsCollector(definitions: definitions, settings: settings), definitions: definitions))
        self.source = source
        self.metrics = metrics
        self.logger = logger
        displayRefreshHz = settings.displayRefreshHz
    }

    /// Before a step: the running light test's patches when they differ from what the
    /// scheduler shows (a new phase, or the sensor moved by more than a third of the patch's
    /// radius: a tracked pose's jitter asks nothing), or
    /// their removal once the test is over.
    public func testPatchesToShow() -> TestPatchesRequest? {
        state.withLock { s in
            let want = s.lightTest.flatMap { run in run.patches.map { TestPatchesRequest(tangible: run.status.tangible, patches: $0) } }
            if let want {
                if let now = s.showing, now.tangible == want.tangible, Self.sameOnScreen(now.patches, want.patches) { return nil }
                s.showing = want
                return want
            }
            guard let now = s.showing else { return nil }
            s.showing = nil
            return TestPatchesRequest(tangible: now.tangible, patches: nil)
        }
    }

    public func testPatches(accepted: Bool, for tangible: TangibleID) {
        guard !accepted else { return }
        state.withLock { s in
            s.showing = nil
            guard var run = s.lightTest, run.status.tangible == tangible else { return }
            run.fail("a calibration of \(run.status.name) is running and holds its light sensor; start the light test again when it is over")
            s.lastStatus = run.status
            s.lightTest = nil
        }
    }

    /// After the pipeline stepped `frame`: runs an active light test (told in which overlay
    /// the scheduler first showed its patches), feeds the collector.
    public func observe(frame: Frame, core: EngineCore, result: FrameResult) {
        guard let output = core.lastOutput else { return }
        let display: DisplayAccumulator? = state.withLock { s in
            if frame.number % 120 == 0 {
                let defs = core.engine.definitions
                if defs != s.definitions { s.definitions = defs; s.collector.setDefinitions(defs) }
            }
            if var run = s.lightTest {
                if let id = core.scheduler.testOverlay(of: run.status.tangible) { run.issued(id) }
                run.step(frame, report: output.tangible(run.status.tangible))
                s.lastStatus = run.status
                s.lightTest = run.status.state == .running ? run : nil
            }
            s.collector.observe(FrameObservation(frame: frame, output: output, overlay: result.overlay, outcomes: result.outcomes,
                                                 table: core.engine.table))
            // After 64 gaps between presented reports and every 256 more: a copy to measure.
            guard logger != nil, s.collector.display.taken >= s.nextDisplayLook else { return nil }
            s.nextDisplayLook = s.collector.display.taken + 256
            return s.collector.display
        }
        if let display { lookAtTheDisplay(display) }
    }

    /// Measures the display's refresh (outside the lock) and logs, once per rate, a refresh
    /// other than the configured one with what to set.
    private func lookAtTheDisplay(_ display: DisplayAccumulator) {
        guard let logger, let figures = display.report(), let message = DisplayAccumulator.mismatch(figures, told: displayRefreshHz),
              let hz = figures.refreshHz else { return }
        let first = state.withLock { $0.refreshesLogged.insert(Int(hz.rounded())).inserted }
        if first { logger.warning("\(message)") }
    }

    /// Whether two sets of test patches look the same on screen (ids, colours, radii, and
    /// centres within a third of the radius, where the patch still covers the sensor).
    private static func sameOnScreen(_ a: [Patch]?, _ b: [Patch]?) -> Bool {
        guard let a, let b, a.count == b.count else { return a == nil && b == nil }
        return zip(a, b).allSatisfy { $0.id == $1.id && $0.colour == $1.colour && $0.radius == $1.radius && $0.center.distance(to: $1.center) <= $1.radius / 3 }
    }

    /// An RSSI value BlueZ reported for a registered PERC (ServiceLinks' mirror listener).
    public func observe(rssi sample: RSSISample) {
        state.withLock { $0.collector.observe(rssi: sample) }
    }

    public func report() -> DiagnoseReport {
        // Copied out (copy-on-write: no sample is copied here) and reported outside the lock:
        // the frame thread takes this lock every frame, and a report sorts every sample.
        let collector = state.withLock { $0.collector }
        let r = collector.report(source: source)
        metrics?.update(from: r)
        return r
    }

    public enum LightTestError: Error, CustomStringConvertible {
        case unknownTangible(String, known: [String]), notAPerc(String), busy(String), badCount(Int)
        public var description: String {
            switch self {
            case .unknownTangible(let t, let known): "no tangible \"\(t)\"; known: \(known.isEmpty ? "none" : known.joined(separator: ", "))"
            case .notAPerc(let t): "\(t) is a PUC: only PERCs have a light sensor"
            case .busy(let t): "a light test of \(t) is running; wait for it to finish"
            case .badCount(let n): "the number of checks must be 1 to 1000, got \(n)"
            }
        }
    }

    /// Starts a light test of `tangible` (id or name) with `count` checks.
    public func startLightTest(tangible: String, count: Int) throws(LightTestError) -> LightTestStatus {
        guard (1...1000).contains(count) else { throw .badCount(count) }
        return try state.withLock { s throws(LightTestError) in
            guard let d = s.definitions.first(where: { "\($0.id)" == tangible || $0.name == tangible }) else {
                throw .unknownTangible(tangible, known: s.definitions.map { "\($0.id) (\($0.name))" })
            }
            guard d.kind == .perc else { throw .notAPerc(d.name) }
            if let run = s.lightTest { throw .busy(run.status.name) }
            let run = LightTestRun(definition: d, count: count)
            s.lightTest = run
            s.lastStatus = run.status
            return run.status
        }
    }

    public var lightTestStatus: LightTestStatus? { state.withLock { $0.lastStatus } }
}
