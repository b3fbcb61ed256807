// What stays known about a trace when its entries are gone (compressed): the per-trace facts.

/// The per-trace facts of thesis 3.2.1 (identifier, type and name of origin) plus a summary
/// of its life that survives compression.
public struct TraceSummary: Hashable, Sendable, Codable {
    public var id: TraceID
    public var origin: InputOrigin
    /// The source's own contact id (slot tracking id, TUIO session id, JSON traceID).
    public var contactID: Int64
    /// Frame time and number of the begin entry.
    public var beganAt: Seconds
    public var beganFrame: UInt64
    public var firstPosition: Vec2
    /// The latest entry's position, time and phase.
    public var lastPosition: Vec2
    public var lastTime: Seconds
    public var lastPhase: ContactUpdate.Phase
    /// Frame time of the end entry; nil while the touch is alive.
    public var endedAt: Seconds?
    /// Entries ever recorded, and whether the entries were dropped (compress time or the
    /// per-trace entry cap dropped the oldest ones).
    public var entryCount: Int
    public var isCompressed: Bool
    /// Total distance travelled (mm), summed over the frame entries.
    public var pathLength: Double

    public var isEnded: Bool { endedAt != nil }
}
