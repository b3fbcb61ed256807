// The per-frame pipeline shared by `serve` and `demo`: frame → core step → outputs, metrics.
import Logging
import MTKTangibles

/// Owns the pure core and runs one step per frame: cuts the inbox at the frame time, steps
/// the core (engine + scheduler), and hands the result to each output. Not thread-safe: one
/// task (the frame clock's) drives it.
final class Pipeline {
    let inbox: InputInbox
    private(set) var core: any FrameCore
    private let outputs: [any FrameOutput]
    private let metrics: ServiceMetrics
    private let logger: Logger
    private(set) var lastResult: FrameResult?
    private var lastStates: [TangibleID: TangibleSnapshot.State] = [:]
    /// Called with (tangible, old state, new state) on state changes only (D-Bus signal, logs).
    var onStateChange: ((TangibleSnapshot, TangibleSnapshot.State?) -> Void)?

    init(core: any FrameCore, inbox: InputInbox, outputs: [any FrameOutput], metrics: ServiceMetrics, logger: Logger) {
        self.core = core; self.inbox = inbox; self.outputs = outputs; self.metrics = metrics; self.logger = logger
    }

    func setDefinitions(_ definitions: [TangibleDefinition]) { core.setDefinitions(definitions) }

    /// Runs one frame ending at `time`; `clock` measures the step time.
    @discardableResult
    func step(at time: Seconds, clock: () -> Seconds = MonotonicClock.now) -> FrameResult {
        let frame = inbox.cut(at: time)
        let started = clock()
        let result = core.step(frame)
        metrics.stepTime.recordNanoseconds(Int64((clock() - started) * 1e9))
        metrics.frames.increment()
        var notifications = 0
        for e in frame.sensorEvents where e.kind != .link { notifications += 1 }
        if notifications > 0 { metrics.notifications.increment(by: notifications) }
        for o in result.outcomes {
            switch o.result {
            case .confirmed: metrics.checksConfirmed.increment()
            case .rejected: metrics.checksRejected.increment()
            case .inconclusive: metrics.checksInconclusive.increment()
            }
        }
        if !result.recognitions.isEmpty { metrics.recognitions.increment(by: result.recognitions.count) }
        for t in result.snapshot.tangibles where lastStates[t.id] != t.state {
            let old = lastStates[t.id]
            lastStates[t.id] = t.state
            logger.info("tangible state", metadata: [
                "tangible": "\(t.name)", "id": "\(t.id)", "from": "\(old?.rawValue ?? "-")", "state": "\(t.state.rawValue)",
                "provenance": "\(t.provenance?.rawValue ?? "-")",
            ])
            onStateChange?(t, old)
        }
        for output in outputs { output.publish(result) }
        lastResult = result
        return result
    }
}
