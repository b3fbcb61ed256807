// Why a tangible changed state: every transition carries one of these (libinput style).

/// The reason of a state transition.
public enum TransitionReason: String, Hashable, Sendable, Codable {
    case linkConnected, linkLost
    case fieldOn, fieldOff
    /// The only fitting triple of traces that began in the time window.
    case windowGuess
    /// Several window triples; all but one no longer fit, ended, or were rejected.
    case soleSurvivor
    /// A light check confirmed a triple or tuple.
    case lightConfirmed
    /// The PERC made one marker touch, and light found its sensor where only one pose around
    /// that touch puts it (`VerificationNeed.Kind.locate`).
    case located
    /// A locate check found the sensor, and every pose that puts it there stands on the one
    /// touch with another marker: `placed`, orientation unresolved.
    case placedUnresolved
    /// Placed, and another free touch appeared that could be the marker it stands on instead.
    case placementContested
    /// At the end of the window another triple fitted, or the guess conflicted with another
    /// tangible: the guess is withdrawn and light checks decide.
    case guessWithdrawn
    /// No light check can run (no app draws the overlay): the best triple of traces that
    /// began since the field came on is taken as a guess.
    case guessedUnchecked
    /// The window ended without a usable triple (or the verified set ran empty).
    case windowExpired
    /// All traces ended while the field sensor stays on (filtered by the touch controller).
    case tracesLost
    /// Traces near the kept pose fit again.
    case recoveredNearPose
    /// Three stationary checks failed in a row (resting, or tracked after its link came back).
    case stationaryChecksFailed
    /// PUC: a fitting triple (the only one, or the best by the ambiguity rule).
    case tripleFound
    case ambiguousBest
    /// PUC: no trace left.
    case allTracesLost
    /// The definition was added, replaced or removed at run time.
    case definitionChanged
}
