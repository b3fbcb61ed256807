// The world's timeline of scheduled internal events, in time order (ties in insertion order).
import MTKTangibles

/// Something the world scheduled for a later time.
enum SimEvent: Hashable, Sendable {
    case field(TangibleID, on: Bool, latency: Seconds, placement: Int?)
    case lightChange(TangibleID, stimulus: Int, colour: LightColour)
    case spontaneousFlip(TangibleID, generation: Int)
    case heartbeat(TangibleID, generation: Int)
    case battery(TangibleID, generation: Int)
    case linkLostNotice(TangibleID, generation: Int)
    case present(Overlay)
}

/// A sorted list kept descending so that the next event is popped from the end.
struct SimEventQueue: Sendable {
    private var items: [(time: Seconds, order: UInt64, event: SimEvent)] = []
    private var counter: UInt64 = 0

    var nextTime: Seconds? { items.last?.time }
    var isEmpty: Bool { items.isEmpty }

    mutating func schedule(_ event: SimEvent, at time: Seconds) {
        counter += 1
        // First index whose entry comes before (earlier time, or same time and earlier order) the new one.
        var lo = 0, hi = items.count
        while lo < hi {
            let mid = (lo + hi) / 2
            let m = items[mid]
            if m.time > time || (m.time == time && m.order > counter) { lo = mid + 1 } else { hi = mid }
        }
        items.insert((time, counter, event), at: lo)
    }

    mutating func pop() -> (time: Seconds, event: SimEvent)? {
        guard let last = items.popLast() else { return nil }
        return (last.time, last.event)
    }
}
