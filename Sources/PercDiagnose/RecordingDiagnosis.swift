// Diagnoses a recording: replays it through ReplayCore (as `replay` does) and feeds each frame to the collector.
import LightCheck
import MTKTangibles
import PercBlueZ
import PercRuntime

/// Diagnoses a recording: replays it (as `replay` does) and feeds each frame to the collector.
public enum RecordingDiagnosis {
    /// Replays `file` frame by frame with the engine and light-check settings its header
    /// holds (those the live run used); a header without them (a `record` file, an older
    /// recording) replays with `engine`/`lightChecks`, named by `fallback`, and the report
    /// says so. RSSI readings go to the collector as they are; calibrations are applied
    /// where the live core applied them.
    public static func run(_ file: RecordingFile, source: String, settings: DiagnoseSettings = DiagnoseSettings(),
                           engine: EngineConfig = EngineConfig(), lightChecks: LightCheckConfig = LightCheckConfig(),
                           fallback: String = "the defaults") -> DiagnoseReport {
        let schedule = RecordingSchedule(file, fallbackEngine: engine, fallbackLightChecks: lightChecks)
        var core = schedule.makeCore()
        var collector = DiagnosticsCollector(definitions: schedule.initial, settings: settings)
        for (f, before) in schedule.steps {
            for change in before {
                core.apply(change)
                if case .definitions(let d) = change { collector.setDefinitions(d) }
            }
            let (out, plan) = core.advance(f)
            collector.observe(FrameObservation(frame: f, output: out, overlay: plan.overlay, outcomes: plan.outcomes,
                                               table: core.engine.table))
        }
        let readings = file.rssiSamples
        for r in readings { collector.observe(rssi: r) }
        var notes = ["engine and light-check settings: \(schedule.settingsNote(fallback: fallback))"]
        if readings.isEmpty {
            notes.append("RSSI: this recording holds no RSSI readings (BlueZ reported none while it was made, "
                         + "or it was made before PercBridge recorded them)")
        }
        return collector.report(source: source, badLines: file.bad.total, notes: notes)
    }
}
