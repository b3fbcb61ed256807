// What one frame of the pure core produced during replay (engine output, overlay, outcomes), with its digest.
import MTKTangibles

/// The result of one frame through the engine and the light-check scheduler.
public struct ReplayStep: Codable, Hashable, Sendable {
    public var frame: UInt64
    public var engine: EngineOutput
    public var overlay: Overlay
    public var outcomes: [VerificationOutcome]

    /// Stable across runs and machines: equal digests mean bit-identical results.
    public var digest: String { FrameDigest.of(self) }
}
