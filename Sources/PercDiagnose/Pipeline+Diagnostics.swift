// Connects the service's live diagnosis to the pipeline: every step is observed, a light test may draw.
import MTKTangibles
import PercRuntime

extension Pipeline {
    /// Feeds `diagnostics` after each step (frame, engine output, overlay, outcomes, traces).
    public func attach(_ diagnostics: LiveDiagnostics) {
        afterStep = { frame, core, result in
            guard let output = core.lastOutput else { return }
            diagnostics.observe(frame: frame, output: output, schedulerOverlay: core.scheduler.overlay, overlay: &result.overlay,
                                outcomes: result.outcomes, table: core.engine.table, definitions: core.engine.definitions)
        }
    }
}
