// What a TUIO input keeps at most, how long a silent sender is believed, and who may send.

/// Defaults (docs/configuration.md says why): a table has one tracker, a few at most (64
/// sources is far beyond any real setup); 256 traces is over twice the touches any
/// multi-touch table reports (the largest report 80–100 at once) and keeps the engine's
/// per-frame matching within its step budget; trackers send `alive` every frame (30–120
/// Hz), so 2 s of silence means the sender is gone.
public struct TUIOLimits: Hashable, Sendable {
    /// A source silent this long is dropped and its cursors end.
    public var sourceTimeout: Double = 2
    public var maxSources = 64
    public var maxTracesPerSource = 256
    /// Alive traces over all sources of this input.
    public var maxTraces = 256
    /// Sender IP addresses accepted; empty: any sender that can reach the socket.
    public var allowFrom: [String] = []

    public init() {}

    public init(sourceTimeout: Double, maxSources: Int, maxTracesPerSource: Int, maxTraces: Int, allowFrom: [String]) {
        self.sourceTimeout = sourceTimeout; self.maxSources = maxSources
        self.maxTracesPerSource = maxTracesPerSource; self.maxTraces = maxTraces; self.allowFrom = allowFrom
    }
}
