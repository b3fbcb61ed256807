// Why a tangible let go of a trace.

/// The reason a trace stopped belonging to a tangible.
public enum ReleaseReason: String, Hashable, Sendable, Codable {
    /// The touch ended (flicker, filtering, lift).
    case ended
    /// Deformation check: the trace no longer fits the others.
    case deformed
    /// Deformation check, ghost-touch rule: the stationary trace of a moving tangible.
    case ghostTouch
    /// The last trace moved away from the tangible's pose.
    case driftedAway
    case fieldOff, linkLost
    case guessWithdrawn
    case definitionChanged
    /// Light checks of its pose, asked after its link came back, were rejected.
    case checksFailed
}
