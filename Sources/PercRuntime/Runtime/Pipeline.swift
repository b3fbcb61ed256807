// The per-frame pipeline shared by `serve` and `demo`: frame → engine → scheduler → outputs.
import Logging
import MTKTangibles
import PercSystem

/// Runs one step per frame: the core (engine + light-check scheduler), then metrics, state
/// change logs and every output. Not thread-safe by itself: `serve` and `demo` keep it in a
/// `Mutex` so the frame clock and the control API take turns.
public final class Pipeline {
    public private(set) var core: EngineCore
    private let outputs: [any FrameOutput]
    private let metrics: ServiceMetrics
    private let logger: Logger
    public private(set) var lastResult: FrameResult?
    private var lastStates: [TangibleID: TangibleSnapshot] = [:]
    private let bugLog = LogRateLimit()
    /// The scheduler's late answers counted into the metric so far.
    private var lateAnswersCounted = 0
    /// Called for each tangible whose state or provenance changed (D-Bus signal).
    public var onStateChange: ((TangibleSnapshot) -> Void)?
    /// Called after each frame, lock held, with the calibration results of that frame
    /// (the control API's waiting calls look here). Must be quick and never wait.
    public var afterFrame: ((FrameView) -> Void)?
    /// Watches each step (diagnostics): asked before it what a light test needs shown, told
    /// after it (before the outputs) what the step did.
    public var observer: (any StepObserver)?

    public init(core: EngineCore, outputs: [any FrameOutput], metrics: ServiceMetrics, logger: Logger) {
        self.core = core; self.outputs = outputs; self.metrics = metrics; self.logger = logger
    }

    public func setDefinitions(_ definitions: [TangibleDefinition]) { core.setDefinitions(definitions) }
    public func withCore<T>(_ body: (inout EngineCore) throws -> T) rethrows -> T { try body(&core) }

    /// Runs one frame; `clock` measures the step time.
    @discardableResult
    public func process(_ frame: Frame, clock: () -> Seconds = MonotonicClock.now) -> FrameResult {
        let started = clock()
        if let observer, let ask = observer.testPatchesToShow() {
            observer.testPatches(accepted: core.showTestPatches(ask.patches, for: ask.tangible), for: ask.tangible)
        }
        let result = core.step(frame)
        observer?.observe(frame: frame, core: core, result: result)
        metrics.stepTime.recordNanoseconds(Int64((clock() - started) * 1e9))
        // The outputs stay after the counting and the state-change callbacks: publishing first
        // (a few µs earlier) made PercBridgeJSTests' light-check test confirm the finger triple
        // beside the PERC in 2 of 5 runs (a timing race of the light checks, issue 15).
        metrics.frames.increment()
        let notifications = frame.sensorEvents.filter { $0.kind != .link }.count
        if notifications > 0 { metrics.notifications.increment(by: notifications) }
        for o in result.outcomes {
            switch o.result {
            case .confirmed: metrics.checksConfirmed.increment()
            case .rejected: metrics.checksRejected.increment()
            case .inconclusive: metrics.checksInconclusive.increment()
            }
        }
        if !result.recognitions.isEmpty { metrics.recognitions.increment(by: result.recognitions.count) }
        let late = core.scheduler.diagnostics.lateAnswers
        if late > lateAnswersCounted { metrics.lateLightAnswers.increment(by: late - lateAnswersCounted) }
        lateAnswersCounted = late
        // Transitions are logged with the engine's reason (journald fields TANGIBLE, STATE, REASON).
        let names = Dictionary(result.snapshot.tangibles.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        for e in core.lastOutput?.events ?? [] {
            if case .impossibleEvent(let state, let event) = e.event {
                metrics.engineBugs.increment()
                if let skipped = bugLog.due() {
                    let name = names[e.tangible] ?? "\(e.tangible)"
                    let more = skipped > 0 ? " (\(skipped) more since the last such line)" : ""
                    logger.error("\(name): the engine sent a \(event) event to a PERC in state \(state.rawValue), which cannot get one; ignored. This is a bug of PercBridge: please report it with a recording (serve --record)\(more)",
                                 metadata: ["tangible": "\(name)", "tangible_id": "\(e.tangible)", "frame": "\(e.frame)"])
                }
                continue
            }
            if case .locateAmbiguous(_, let poses) = e.event {
                let name = names[e.tangible] ?? "\(e.tangible)"
                logger.info("\(name): light found the sensor of its one marker touch, but \(poses) poses put it there; none is taken (it is recognised when a second marker touches)",
                            metadata: ["tangible": "\(name)", "tangible_id": "\(e.tangible)", "frame": "\(e.frame)"])
                continue
            }
            guard case .transition(let from, let to, let reason) = e.event else { continue }
            let name = names[e.tangible] ?? "\(e.tangible)"
            logger.info("\(name): \(from.rawValue) → \(to.rawValue) (\(reason))", metadata: [
                "tangible": "\(name)", "tangible_id": "\(e.tangible)", "state": "\(to.rawValue)",
                "previous_state": "\(from.rawValue)", "reason": "\(reason)", "frame": "\(e.frame)",
            ])
        }
        for t in result.snapshot.tangibles {
            let old = lastStates[t.id]
            guard old?.state != t.state || old?.provenance != t.provenance else { continue }
            lastStates[t.id] = t
            // A provenance change without a transition (a tracked PERC's link went or came
            // back) has no transition line above.
            if let old, old.state == t.state, let from = old.provenance, let to = t.provenance {
                let why = to == .kept && t.state == .tracked ? " (its link is down: followed by its touches)"
                    : from == .kept && t.state == .tracked ? " (its link is back and a light check saw it where it lies, or no app draws to check)" : ""
                logger.info("\(t.name): provenance \(from.rawValue) → \(to.rawValue), still \(t.state.rawValue)\(why)", metadata: [
                    "tangible": "\(t.name)", "tangible_id": "\(t.id)", "state": "\(t.state.rawValue)",
                    "provenance": "\(to.rawValue)", "previous_provenance": "\(from.rawValue)",
                ])
            }
            onStateChange?(t)
        }
        for output in outputs { output.publish(result) }
        lastResult = result
        let calibrations = core.takeCalibrations()
        afterFrame?(FrameView(pipeline: self, calibrations: calibrations))
        return result
    }
}

/// What a light test asks the scheduler to show for a tangible (nil patches: take them off).
public struct TestPatchesRequest: Sendable, Equatable {
    public var tangible: TangibleID
    public var patches: [Patch]?
    public init(tangible: TangibleID, patches: [Patch]?) { self.tangible = tangible; self.patches = patches }
}

/// Watches the pipeline's steps under its lock (must be quick and never wait). It draws
/// nothing itself: what it needs shown it asks of LightCheck's scheduler, through the core.
public protocol StepObserver: AnyObject, Sendable {
    /// Before a step: patches to show or take off now (nil: nothing to change).
    func testPatchesToShow() -> TestPatchesRequest?
    /// Whether the scheduler took the request (false: a calibration of the tangible runs).
    func testPatches(accepted: Bool, for tangible: TangibleID)
    /// After a step, before the outputs.
    func observe(frame: Frame, core: EngineCore, result: FrameResult)
}
