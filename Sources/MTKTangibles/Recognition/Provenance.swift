// How sure the engine is of a tangible's pose (DESIGN.md "PERC behaviour").

/// Where a reported pose comes from.
public enum Provenance: String, Hashable, Sendable, Codable {
    /// From a fitting triple taken without a light check (time-window guess, sole
    /// survivor, a PUC's recognition).
    case guessed
    /// A light check confirmed the traces (or the pose they continue from).
    case confirmed
    /// Resting: the traces are gone, the pose is kept and stationary checks pass.
    case kept
}
