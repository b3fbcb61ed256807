// What every touch input (evdev device, TUIO, JSON, recording) offers the service.
import MTKTangibles

/// A running touch input. `run` delivers contact updates to `sink` (from the source's own
/// thread or event loop) until the task is cancelled or the source ends (a recording).
public protocol InputSource: Sendable {
    /// For logs and `percbridge input list` (e.g. `tuio:0.0.0.0:3333`).
    var name: String { get }
    func run(sink: @escaping @Sendable ([ContactUpdate]) -> Void) async throws
    /// Bad input seen so far (counted, first location kept).
    var badInput: BadInputLog { get }
}
