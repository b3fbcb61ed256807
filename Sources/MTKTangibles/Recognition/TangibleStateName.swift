// The names of the states a tangible can be in, as reported and logged.

/// A tangible's state. PERCs use the five states of thesis Fig. 3.12 / DESIGN.md; PUCs
/// only `notRecognized` and `recognized` (thesis 3.3.1).
public enum TangibleStateName: String, Hashable, Sendable, Codable, CaseIterable {
    case notInRange, inRange, onSurface, tracked, resting
    case notRecognized, recognized
}
