// One timed step of a scenario and its JSON form: `{"at": 1.5, "<verb>": {...}}`.
import MTKTangibles

/// A scenario step: at time `at` (seconds from the scenario's start), do `action`.
public struct ScenarioStep: Hashable, Sendable, Codable {
    public var at: Seconds
    public var action: ScenarioAction

    public init(at: Seconds, _ action: ScenarioAction) { self.at = at; self.action = action }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        at = try c.decode(Double.self, forKey: Key("at"))
        guard at.isFinite, at >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: Key("at"), in: c, debugDescription: "a step's time must be a finite number ≥ 0, got \(at)")
        }
        let verbs = c.allKeys.map(\.stringValue).filter { $0 != "at" }
        guard verbs.count == 1, let verb = verbs.first else {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription:
                "a step has \"at\" and exactly one action (one of \(ScenarioAction.verbs.joined(separator: ", "))), found \(verbs.isEmpty ? "none" : verbs.sorted().joined(separator: ", "))"))
        }
        let k = Key(verb)
        switch verb {
        case "place": action = .place(try c.decode(ScenarioAction.Place.self, forKey: k))
        case "move": action = .move(try c.decode(ScenarioAction.Move.self, forKey: k))
        case "rotate": action = .rotate(try c.decode(ScenarioAction.Rotate.self, forKey: k))
        case "lift": action = .lift(try c.decode(ScenarioAction.TangibleRef.self, forKey: k))
        case "touch": action = .touch(try c.decode(ScenarioAction.Touch.self, forKey: k))
        case "release": action = .release(try c.decode(ScenarioAction.TangibleRef.self, forKey: k))
        case "fingerDown": action = .fingerDown(try c.decode(ScenarioAction.FingerDown.self, forKey: k))
        case "fingerMove": action = .fingerMove(try c.decode(ScenarioAction.FingerMove.self, forKey: k))
        case "fingerUp": action = .fingerUp(try c.decode(ScenarioAction.FingerRef.self, forKey: k))
        case "fingersTriple": action = .fingersTriple(try c.decode(ScenarioAction.FingersTriple.self, forKey: k))
        case "linkLoss": action = .linkLoss(try c.decode(ScenarioAction.TangibleRef.self, forKey: k))
        case "linkReturn": action = .linkReturn(try c.decode(ScenarioAction.TangibleRef.self, forKey: k))
        case "hardware": action = .hardware(try c.decode(HardwareOverrides.self, forKey: k))
        case "background": action = .background(try c.decode(LightColour.self, forKey: k))
        case "flicker": action = .flicker(try c.decode(ScenarioAction.Flicker.self, forKey: k))
        default:
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath + [k], debugDescription:
                "unknown action '\(verb)'; expected one of \(ScenarioAction.verbs.joined(separator: ", "))"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(at, forKey: Key("at"))
        let k = Key(action.verb)
        switch action {
        case .place(let p): try c.encode(p, forKey: k)
        case .move(let p): try c.encode(p, forKey: k)
        case .rotate(let p): try c.encode(p, forKey: k)
        case .lift(let p), .release(let p), .linkLoss(let p), .linkReturn(let p): try c.encode(p, forKey: k)
        case .touch(let p): try c.encode(p, forKey: k)
        case .fingerDown(let p): try c.encode(p, forKey: k)
        case .fingerMove(let p): try c.encode(p, forKey: k)
        case .fingerUp(let p): try c.encode(p, forKey: k)
        case .fingersTriple(let p): try c.encode(p, forKey: k)
        case .hardware(let p): try c.encode(p, forKey: k)
        case .background(let p): try c.encode(p, forKey: k)
        case .flicker(let p): try c.encode(p, forKey: k)
        }
    }
}
