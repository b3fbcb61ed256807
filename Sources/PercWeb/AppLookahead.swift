// The optional `predict_ms` of an app's hello: how far ahead it wants tangible poses predicted.
import Foundation

/// Validates `predict_ms` (an integer number of milliseconds, 0…`maxMS`; absent means 0,
/// no prediction). Apps use it to draw where a moving tangible will be when their frame is
/// on screen (the touch-prediction idea, for tangibles).
public enum AppLookahead {
    /// Beyond ~100 ms a straight-line guess is more wrong than helpful; bounding it also
    /// bounds how many frame encodings the hub makes.
    public static let maxMS = 100

    static func decode(_ data: Data) -> Result<Int, AppProtocolError> {
        let bad = AppProtocolError(code: .invalid, message: "predict_ms must be an integer number of milliseconds from 0 to \(maxMS)",
                                   inReplyTo: "hello")
        // A string, bool or object where the number belongs fails to decode: an error, not 0.
        guard let m = try? JSONDecoder().decode(HelloLookahead.self, from: data) else { return .failure(bad) }
        guard let v = m.predict_ms else { return .success(0) }
        guard v.isFinite, let ms = Int(exactly: v), (0...maxMS).contains(ms) else { return .failure(bad) }
        return .success(ms)
    }

    private struct HelloLookahead: Decodable { var predict_ms: Double? }
}
