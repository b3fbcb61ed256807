// The engine's record of one defined tangible: its definition, recogniser and learned jitter.

/// A PERC's state machine or a PUC's recogniser.
enum TangibleMachine: Sendable {
    case perc(PercMachine)
    case puc(PucRecogniser)
}

struct TangibleSlot: Sendable {
    var definition: TangibleDefinition
    var pattern: TrianglePattern
    var machine: TangibleMachine
    var jitter = JitterEstimator()
    var lightValue: Int?
    var battery: Int?

    init(_ d: TangibleDefinition, config: EngineConfig) {
        definition = d
        pattern = TrianglePattern(d)
        machine = d.kind == .perc ? .perc(PercMachine(definition: d, config: config)) : .puc(PucRecogniser(definition: d))
    }

    var track: Track? {
        switch machine {
        case .perc(let m): return m.track
        case .puc(let p): return p.track
        }
    }

    var held: [TraceID] { track?.traces ?? [] }

    var stateName: TangibleStateName {
        switch machine {
        case .perc(let m): return m.stateName
        case .puc(let p): return p.stateName
        }
    }
}
