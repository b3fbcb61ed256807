// The diagnosis inside the running service: fed by the pipeline each frame, read by /diagnostics and /metrics.
import Foundation
import LightCheck
import MTKTangibles
import Synchronization
import PercRuntime

/// Thread-safe holder of the service's `DiagnosticsCollector` and of an active light test.
/// The pipeline calls `observe` after each step (under its own lock); the web routes read
/// reports and start light tests from other threads.
public final class LiveDiagnostics: Sendable {
    private struct State: Sendable {
        var collector: DiagnosticsCollector
        var definitions: [TangibleDefinition]
        var lightTest: LightTestRun?
        var lastStatus: LightTestStatus?
        /// Light-test overlays get ids of their own, far above the scheduler's.
        var nextOverlayID: UInt64 = 1 << 48
        var mergedFrom: (scheduler: UInt64, patches: [Patch])?
    }

    private let state: Mutex<State>
    let source: String
    private let metrics: DiagnosticsMetrics?

    public init(definitions: [TangibleDefinition], settings: DiagnoseSettings = DiagnoseSettings(), source: String,
         metrics: DiagnosticsMetrics? = nil) {
        state = Mutex(State(collector: DiagnosticsCollector(definitions: definitions, settings: settings), definitions: definitions))
        self.source = source
        self.metrics = metrics
    }

    /// After the pipeline stepped `frame`: feeds the collector, runs an active light test
    /// (whose patch replaces the scheduler's for that tangible in `overlay`).
    func observe(frame: Frame, output: EngineOutput, schedulerOverlay: Overlay, overlay: inout Overlay?,
                 outcomes: [VerificationOutcome], table: TraceTable, definitions: @autoclosure () -> [TangibleDefinition]) {
        state.withLock { s in
            if frame.number % 120 == 0 {
                let defs = definitions()
                if defs != s.definitions { s.definitions = defs; s.collector.setDefinitions(defs) }
            }
            if var run = s.lightTest {
                run.step(frame, report: output.tangible(run.status.tangible))
                overlay = merge(run: &run, scheduler: schedulerOverlay, state: &s) ?? overlay
                s.lastStatus = run.status
                s.lightTest = run.status.state == .running ? run : nil
                if s.lightTest == nil {
                    // The test is over: put the scheduler's own overlay back on screen.
                    overlay = schedulerOverlay
                    s.mergedFrom = nil
                }
            }
            s.collector.observe(FrameObservation(frame: frame, output: output, overlay: overlay, outcomes: outcomes, table: table))
        }
    }

    /// An RSSI value BlueZ reported for a registered PERC (ServiceLinks' mirror listener).
    public func observe(rssi sample: RSSISample) {
        state.withLock { $0.collector.observe(rssi: sample) }
    }

    /// A new overlay when the test's patches or the scheduler's overlay changed, else nil.
    private func merge(run: inout LightTestRun, scheduler: Overlay, state s: inout State) -> Overlay? {
        guard let mine = run.patches else { return nil }
        if let m = s.mergedFrom, m.scheduler == scheduler.id, m.patches == mine { return nil }
        s.mergedFrom = (scheduler.id, mine)
        let id = s.nextOverlayID
        s.nextOverlayID += 1
        run.issued(id)
        return Overlay(id: id, patches: scheduler.patches.filter { $0.tangible != run.status.tangible } + mine)
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
