// Diagnoses a recording: replays it through ReplayCore (as `replay` does) and feeds each frame to the collector.
import LightCheck
import MTKTangibles

public enum RecordingDiagnosis {
    /// Replays `file` frame by frame with the engine and light-check settings given (the
    /// recording does not store them; `replay` uses the defaults too) and returns the report.
    public static func run(_ file: RecordingFile, source: String, settings: DiagnoseSettings = DiagnoseSettings(),
                           engine: EngineConfig = EngineConfig(), lightChecks: LightCheckConfig = LightCheckConfig()) -> DiagnoseReport {
        let schedule = RecordingSchedule(file)
        var core = ReplayCore(definitions: schedule.initial, engineConfig: engine, lightCheckConfig: lightChecks)
        var collector = DiagnosticsCollector(definitions: schedule.initial, settings: settings)
        for (f, definitionsBefore) in schedule.steps {
            for d in definitionsBefore {
                core.setDefinitions(d)
                collector.setDefinitions(d)
            }
            let (out, plan) = core.advance(f)
            collector.observe(FrameObservation(frame: f, output: out, overlay: plan.overlay, outcomes: plan.outcomes,
                                               table: core.engine.table))
        }
        return collector.report(source: source, badLines: file.bad.total)
    }
}
