// What the analysis sees of one frame: its inputs, the core's results, and where assigned traces began.
import LightCheck
import MTKTangibles

/// One frame as the diagnosis consumes it, from a replay or from the live pipeline.
struct FrameObservation: Sendable {
    public var frame: Frame
    public var output: EngineOutput
    /// The overlay the scheduler planned this frame (its id tells whether it is new).
    public var overlay: Overlay?
    public var outcomes: [VerificationOutcome]
    /// The contact each trace named in `output.events` came from, and its begin frame time.
    var traceStarts: [TraceID: TraceStart]

    struct TraceStart: Hashable, Sendable {
        public var origin: InputOrigin
        public var contactID: Int64
        public var beganAt: Seconds
        public init(origin: InputOrigin, contactID: Int64, beganAt: Seconds) {
            self.origin = origin; self.contactID = contactID; self.beganAt = beganAt
        }
    }

    public init(frame: Frame, output: EngineOutput, overlay: Overlay?, outcomes: [VerificationOutcome],
                traceStarts: [TraceID: TraceStart] = [:]) {
        self.frame = frame; self.output = output; self.overlay = overlay; self.outcomes = outcomes
        self.traceStarts = traceStarts
    }

    /// Looks up the traces the events name in the engine's trace table (just after the step).
    public init(frame: Frame, output: EngineOutput, overlay: Overlay?, outcomes: [VerificationOutcome], table: TraceTable) {
        var starts: [TraceID: TraceStart] = [:]
        for e in output.events {
            let ids: [TraceID]
            switch e.event {
            case .tracesAssigned(let t, _): ids = t
            case .traceAdopted(let t, _): ids = [t]
            default: continue
            }
            for id in ids where starts[id] == nil {
                if let s = table.summary(id) { starts[id] = TraceStart(origin: s.origin, contactID: s.contactID, beganAt: s.beganAt) }
            }
        }
        self.init(frame: frame, output: output, overlay: overlay, outcomes: outcomes, traceStarts: starts)
    }
}
