// Diagnoses a recording: replays it through ReplayCore (as `replay` does) and feeds each frame to the collector.
import LightCheck
import MTKTangibles

public enum RecordingDiagnosis {
    /// Replays `file` frame by frame with the engine and light-check settings given (the
    /// recording does not store them; `replay` uses the defaults too) and returns the report.
    public static func run(_ file: RecordingFile, source: String, settings: DiagnoseSettings = DiagnoseSettings(),
                           engine: EngineConfig = EngineConfig(), lightChecks: LightCheckConfig = LightCheckConfig()) -> DiagnoseReport {
        let frames = file.frames()
        let firstNumber = frames.first?.number ?? 1
        var later = file.definitionsByFrame
        let initial = later.last(where: { $0.beforeFrame <= firstNumber })?.definitions ?? []
        later.removeAll { $0.beforeFrame <= firstNumber }
        var core = ReplayCore(definitions: initial, engineConfig: engine, lightCheckConfig: lightChecks)
        var collector = DiagnosticsCollector(definitions: initial, settings: settings)
        for f in frames {
            while let d = later.first, d.beforeFrame <= f.number {
                core.setDefinitions(d.definitions)
                collector.setDefinitions(d.definitions)
                later.removeFirst()
            }
            let (out, plan) = core.advance(f)
            collector.observe(FrameObservation(frame: f, output: out, overlay: plan.overlay, outcomes: plan.outcomes,
                                               table: core.engine.table))
        }
        return collector.report(source: source, badLines: file.bad.total)
    }
}
