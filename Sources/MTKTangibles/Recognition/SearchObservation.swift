// What the engine found for one searching tangible in one frame (input of a `.search` event).

/// The candidates open to one tangible this frame: only traces no other tangible holds
/// (traces of a pending window guess stay open to rivals until the window ends).
public struct SearchObservation: Sendable {
    /// Fitting triples whose traces all began inside the tangible's time window.
    public var windowTriples: [Candidate] = []
    /// Two-trace tuples of window traces that are not part of a window triple: the PERC may
    /// have made only two touches, so a sole window triple is no longer a safe guess.
    public var windowTuples: [Candidate] = []
    /// The other ways the window triples' traces fit the pattern (a nearly symmetric one:
    /// each a different turn, with its own light-sensor position); empty when light cannot
    /// check them (`canCheck` false).
    /// A window triple with such alternatives is no guess to take: its turn is not known.
    public var windowAlternatives: [Candidate] = []
    /// Every trace open to the PERC that began inside its time window (at the window's end).
    /// One outside the guessed triple may be the PERC's own touch (it made fewer than three
    /// and the triple is fingers), so the guess must be light-checked.
    public var windowTraces: Set<TraceID> = []
    /// All fitting triples (PERC lightOnly phase, less those of another PERC's time window,
    /// `EngineConfig.otherWindowsFirst`; PUC search).
    public var triples: [Candidate] = []
    /// Two-trace tuples (PERC lightOnly phase only; the same rule).
    public var tuples: [Candidate] = []
    /// Verifying phase: the PERC's verifying candidates refitted to the traces' current
    /// positions (those whose traces ended, were taken or no longer fit are left out).
    public var verifying: [Candidate] = []
    /// Recovery around a resting tangible's kept pose (two or three traces), if any fit.
    public var nearPose: TrackUpdate?
    /// Trace sets of window triples another searching tangible could take too.
    public var contested: Set<[TraceID]> = []
    /// Trace sets of window (or verifying) triples that a linked PERC whose field is still
    /// off could announce as its own (`EngineConfig.awaitUnannounced`; only when light can
    /// check): no guess is taken on them, light decides.
    public var awaited: Set<[TraceID]> = []
    /// Free touches lying still that began inside the PERC's time window (lightOnly phase,
    /// nearest the field-on first, at most `maxLoneTouches`): when no triple or pair fits,
    /// one of them may be the PERC's only marker touch, and light can find its sensor.
    public var loneTouches: [LoneTouch] = []
    /// Whether a light check can run for this tangible this frame: an app draws the overlay
    /// (`Frame.drawing`) and the tangible's light sensor offset is known. When not, nothing
    /// is asked and the PERC is guessed from its traces.
    public var canCheck = true
    /// Inside the time window: another PERC is searching or linked with its field off (it
    /// may be set down beside this one), so pairs wait longer (`EngineConfig.pairCheckAfter`).
    public var besideOtherPercs = false
    /// A tracked PERC awaiting its re-confirmation: whether all its traces lie still (a
    /// stationary check of a moving pose would be answered by the background).
    public var trackIsStill = false
    /// A placed PERC: where the touch it stands on is now (nil: it ended or another took it).
    public var placedTouch: Vec2?
    /// A placed PERC: free touches that could be the marker it stands on instead (as far from
    /// its sensor as one of its markers, but not a second marker beside its touch).
    public var placedRivals = 0

    public init() {}

    public func isContested(_ c: Candidate) -> Bool { contested.contains(c.traceSet) }
    public func isAwaited(_ c: Candidate) -> Bool { awaited.contains(c.traceSet) }
}

/// A free, still touch that may be a PERC's only marker touch (see `SearchObservation.loneTouches`).
public struct LoneTouch: Hashable, Sendable {
    public var trace: TraceID
    public var position: Vec2
    public var began: Seconds
    public var origin: InputOrigin
}
