// `serve --record FILE`: a live run's settings, inputs, frame ticks, registry changes, calibrations and result digests.
import Foundation
import LightCheck
import MTKTangibles

/// The frame clock writes every contact update, sensor event, presented report and frame
/// tick through `recorder` (in the order it sees them). This adds what only the service
/// knows: the engine and light-check settings (header), the definitions in effect (at start
/// and after each registry change, between the frames where the engine switched), the
/// calibrations the control API started or cancelled (with the frame after which the core
/// applied them) and each frame's result digest, so `percbridge replay` reproduces the run
/// and compares every frame. ServiceLinks adds the RSSI readings BlueZ reports.
public final class ServeRecording: Sendable {
    public let recorder: Recorder

    /// - Throws: `RecordingError` when the file cannot be created (its message says what to do).
    public init(path: String, config: ServiceConfig, surface: Vec2, sources: [String], definitions: [TangibleDefinition]) throws {
        let header = RecordingHeader(writer: "percbridge 0.1.0 serve", surface: surface,
                                     clock: config.clock.mode == .events ? "events" : config.clock.followPresented ? "follow-presented" : "fixed",
                                     rateHz: config.clock.rateHz, sources: sources,
                                     engine: config.engineConfig, lightChecks: config.lightCheckConfig)
        recorder = try Recorder(path: path, header: header)
        recorder.record(definitions: definitions)
    }

    /// After `pipeline` processed `frame`: the scheduler commands applied before it and the
    /// digest `percbridge replay` computes for it.
    public func recordResult(of pipeline: Pipeline, frame: Frame, result: FrameResult) {
        recorder.record(stepOf: pipeline, frame: frame, result: result)
    }

    public func record(definitions: [TangibleDefinition]) { recorder.record(definitions: definitions) }

    public func close() { recorder.close() }
}

extension Recorder {
    /// After `pipeline` processed `frame` (under its lock): the scheduler commands applied
    /// before the step (calibrations, light-test patches) and the step's result digest,
    /// digested on the recorder's writer, off the frame loop.
    func record(stepOf pipeline: Pipeline, frame: Frame, result: FrameResult) {
        for c in result.schedulerCommands { record(command: c) }
        guard let output = pipeline.core.lastOutput else { return }
        record(result: ReplayStep(frame: frame.number, engine: output, overlay: pipeline.core.scheduler.overlay, outcomes: result.outcomes))
    }
}
