// What applying one frame did to the trace table.

/// The traces that began, ended and were retired to history by one `TraceTable.apply`.
public struct TraceChanges: Hashable, Sendable {
    public var began: [TraceID] = []
    public var ended: [TraceID] = []
    /// Traces that ended in the previous frame and left the live set now.
    public var retired: [TraceID] = []
    /// Updates for contacts the table did not know that were not a begin (counted, then
    /// taken as a begin) and `end` updates of unknown contacts (counted, dropped).
    public var unknownContactUpdates: Int = 0

    public init() {}
}
