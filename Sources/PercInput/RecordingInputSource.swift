// Plays a touch recording (evemu or libinput record) as a live input, with its original timing.
import Foundation
import MTKTangibles
import PercSystem

/// Decodes the whole recording, then hands each frame's updates to the sink at the recorded
/// pace (`speed` 2 = twice as fast), with times moved onto the monotonic timeline of now.
public struct RecordingInputSource: InputSource {
    public let path: String
    public let surfaceSize: Vec2?
    public let speed: Double
    private let decoded: DecodedRecording

    public init(path: String, descPath: String? = nil, surfaceSize: Vec2? = nil, speed: Double = 1) throws {
        self.path = path; self.surfaceSize = surfaceSize; self.speed = max(speed, 0.001)
        decoded = RecordingDecoder.decode(try RecordingLoader.load(path: path, descPath: descPath), surfaceSize: surfaceSize)
    }

    public var name: String { "recording:\(path)" }
    public var badInput: BadInputLog { decoded.bad }
    var updateCount: Int { decoded.updates.count }

    public func run(sink: @escaping @Sendable ([ContactUpdate]) -> Void) async throws {
        guard let first = decoded.updates.first?.time else { return }
        let start = MonotonicClock.now()
        var i = 0
        let all = decoded.updates
        while i < all.count {
            let t = all[i].time
            var batch: [ContactUpdate] = []
            while i < all.count, all[i].time == t { batch.append(all[i]); i += 1 }
            let due = start + (t - first) / speed
            let wait = due - MonotonicClock.now()
            if wait > 0 { try await Task.sleep(for: .nanoseconds(Int64(wait * 1e9))) }
            let now = MonotonicClock.now()
            sink(batch.map { u in
                var u = u
                u.origin = InputOrigin(kind: .recording, device: u.origin.device)
                u.time = due; u.arrival = now
                return u
            })
        }
    }
}
