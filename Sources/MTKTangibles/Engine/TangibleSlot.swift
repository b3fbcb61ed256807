// The engine's record of one defined tangible: its definition, recogniser and learned jitter.

/// One tangible in the engine. Exactly one of `perc` / `puc` is set; they are optionals
/// rather than an enum so that `slots[i].perc!.handle(…)` mutates in place (an enum
/// payload would be copied out and back, copying the machine's buffers every frame).
struct TangibleSlot: Sendable {
    private let constants: SharedConstant<TangibleDefinition>
    var definition: TangibleDefinition { constants.value }
    /// Kept apart from the definition: reading one through a shared tuple copied both
    /// (every string and array of the definition retained) in every frame's upkeep.
    let pattern: TrianglePattern
    /// For the output, without copying the definition.
    let name: String
    let kind: TangibleDefinition.Kind
    /// Index of the pattern group (definitions with the same markers share matching work).
    var group = 0
    var perc: PercMachine?
    var puc: PucRecogniser?
    var jitter = JitterEstimator()
    var lightValue: Int?
    var battery: Int?

    init(_ d: TangibleDefinition, config: EngineConfig) {
        constants = SharedConstant(d)
        pattern = TrianglePattern(d)
        name = d.name
        kind = d.kind
        id = d.id
        if d.kind == .perc { perc = PercMachine(definition: d, config: config) } else { puc = PucRecogniser(definition: d) }
    }

    let id: TangibleID

    var track: Track? { perc?.track ?? puc?.track }

    var held: [TraceID] { track?.traces ?? perc?.placement.map { [$0.touch] } ?? [] }

    var stateName: TangibleStateName { perc?.stateName ?? puc!.stateName }

    /// This tangible's part of a step's output. `mutating` though it changes nothing: called
    /// as `slots[i].report(…)` it then reads the slot in place instead of copying it.
    mutating func report(_ config: EngineConfig) -> (TangibleReport, VerificationNeed?) {
        var r = TangibleReport(id: id, name: name, kind: kind, state: stateName, pose: nil, provenance: nil, traces: held,
                               tolerance: jitter.tolerance(config), searchPhase: nil, lightValue: lightValue, battery: battery)
        var need: VerificationNeed?
        if perc != nil {
            if let (pose, prov) = perc?.pose { r.pose = pose; r.provenance = prov }
            r.searchPhase = perc?.searchPhase
            r.placement = perc?.placement
            need = perc?.need
        } else if let t = puc?.track {
            r.pose = t.pose; r.provenance = t.provenance
        }
        return (r, need)
    }

    mutating func handleTrack(_ u: TrackUpdate, at t: Seconds) -> [TangibleEvent] {
        if perc != nil { return perc!.handle(.track(u), at: t) }
        return puc!.handle(.track(u), at: t)
    }
}
