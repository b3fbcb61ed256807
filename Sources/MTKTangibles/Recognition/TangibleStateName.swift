// The names of the states a tangible can be in, as reported and logged.

/// A tangible's state. PERCs use the five states of thesis Fig. 3.12 / DESIGN.md; PUCs
/// only `notRecognized` and `recognized` (thesis 3.3.1). `placed` is `onSurface` with a
/// `Placement`: put down on one marker touch, the sensor found, the orientation unresolved.
public enum TangibleStateName: String, Hashable, Sendable, Codable, CaseIterable {
    case notInRange, inRange, onSurface, placed, tracked, resting
    case notRecognized, recognized
}
