// `--record FILE` for the demo: each frame's inputs, scheduler commands and result digest, in the recording format.
import MTKTangibles

/// Wraps the inputs part's `Recorder`, so `percbridge replay` can play a demo run back.
public struct DemoRecording: Sendable {
    private let recorder: Recorder

    /// `config`: the one the demo's core runs with (its settings go into the header).
    public init(path: String, config: ServiceConfig, surface: Vec2, rate: Double, scenario: String,
         definitions: [TangibleDefinition]) throws {
        recorder = try Recorder(path: path, header: RecordingHeader(writer: "percbridge demo", surface: surface,
                                                                    rateHz: rate, sources: ["simulator:\(scenario)"],
                                                                    engine: config.engineConfig,
                                                                    lightChecks: config.lightCheckConfig))
        recorder.record(definitions: definitions)
    }

    public func record(_ frame: Frame) {
        for c in frame.contacts { recorder.record(c) }
        for e in frame.sensorEvents { recorder.record(e) }
        for p in frame.presented { recorder.record(p) }
        recorder.recordFrame(frame)
    }

    /// The registry changed (the control API): replay switches definitions at this point too.
    public func record(definitions: [TangibleDefinition]) { recorder.record(definitions: definitions) }

    /// After `pipeline` processed `frame` (under its lock): the scheduler commands applied
    /// before it (replay applies them where noted) and its result digest (replay compares).
    public func recordResult(of pipeline: Pipeline, frame: Frame, result: FrameResult) {
        recorder.record(stepOf: pipeline, frame: frame, result: result)
    }

    public func close() { recorder.close() }
}
