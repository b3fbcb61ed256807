// Per-tangible field-sensor figures: on/off counts and when the marker traces began around field-on.
import MTKTangibles

/// For each placement (field-on notification), the begin of each marker trace the engine
/// gave the tangible, relative to the notification's arrival: the distribution the engine's
/// time window must cover on this surface (thesis 3.3.2 Detection).
struct FieldAccumulator: Sendable {
    private(set) var onCount = 0
    private(set) var offCount = 0
    private(set) var onsets = SignedDistribution()
    private var value: Int?
    /// The current placement's field-on arrival and the traces counted for it.
    private var onAt: Seconds?
    private var counted: Set<TraceID> = []
    let markers: Int

    init(markers: Int) { self.markers = markers }

    /// Returns whether the field sensor changed (placement or lift).
    mutating func observe(_ e: SensorEvent) -> Bool {
        guard e.kind == .field else {
            if e.kind == .link && e.value == 0 { value = nil; onAt = nil }
            return false
        }
        let on = e.value != 0
        guard value != e.value else { return false }
        let first = value == nil
        value = e.value
        // The state reported at connect is no placement or lift: it only sets the state.
        if first { return false }
        if on {
            onCount += 1
            onAt = e.arrival
            counted = []
        } else {
            offCount += 1
            onAt = nil
        }
        return true
    }

    /// A trace the engine assigned to this tangible, which began (first sample arrived) at `began`.
    mutating func assigned(_ trace: TraceID, began: Seconds, settings: DiagnoseSettings) {
        guard let on = onAt, !counted.contains(trace), counted.count < markers else { return }
        let offset = began - on
        guard offset >= -settings.onsetBefore, offset <= settings.onsetAfter else { return }
        counted.insert(trace)
        onsets.add(offset * 1000)
    }

    func report(settings: DiagnoseSettings) -> FieldFigures {
        var f = FieldFigures(onCount: onCount, offCount: offCount, onsetOffsetsMs: onsets,
                             configuredWindowMs: settings.configuredWindow * 1000)
        if onsets.count > 0 {
            let w = settings.configuredWindow * 1000
            f.insideConfiguredWindow = Double(onsets.samples.filter { abs($0) <= w }.count) / Double(onsets.count)
        }
        if onsets.count >= settings.minOnsetsForSuggestion, let q = onsets.magnitudeQuantile(0.99) {
            // One frame more (the engine compares frame times), rounded up to 10 ms.
            f.suggestedWindowMs = ((q + settings.framePeriod * 1000) / 10).rounded(.up) * 10
        }
        return f
    }
}
