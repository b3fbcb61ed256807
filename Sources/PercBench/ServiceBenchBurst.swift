// `bench service`: the burst phases — every PERC notification timed from the emulator's send to the WebSocket app's receipt of the frame that carried it.
import Foundation
import Histogram
import MTKTangibles

/// When an app received each frame: (frame time, receive time) in the order received, the
/// newest `capacity` kept.
struct BenchFrameReceipts: Sendable {
    static let capacity = 200_000
    private(set) var times: [Seconds] = []
    private(set) var receipts: [Seconds] = []

    mutating func add(time: Seconds, received: Seconds) {
        if times.count >= Self.capacity {
            times.removeFirst(Self.capacity / 2)
            receipts.removeFirst(Self.capacity / 2)
        }
        times.append(time)
        receipts.append(received)
    }

    /// Receive time of the first frame whose time is at or after `tick`: the first frame that
    /// carries what that tick's frame took (a latest-wins app may miss the tick's own frame).
    func firstReceipt(atOrAfter tick: Seconds) -> Seconds? {
        let i = firstIndex(atOrAfter: tick)
        return i < times.count ? receipts[i] : nil
    }

    /// The first frame whose time is at or after `tick` (`times.count`: none). Frame times grow
    /// with each frame; the JSON's time has 6 decimals.
    private func firstIndex(atOrAfter tick: Seconds) -> Int {
        var lo = 0, hi = times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] < tick - 1e-6 { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}

/// The burst phases: every placed PERC streams field and light (the light toggles) at
/// `--burst-rate` Hz, `burst` all on the same phase (one burst of N notifications each period,
/// as when a hand sweeps over several PERCs), `onebyone` streams started one after another.
/// serve's recording gives each notification's device time (the emulator's send), serve's
/// arrival and the tick of the frame that took it; one WebSocket app notes when it received
/// each frame.
enum BenchBurst {
    enum Pattern: String, Sendable {
        case together = "burst"
        case oneByOne = "onebyone"
    }

    struct Result: Sendable {
        var total = BenchLatency.Result.histogram()
        var excludingWait = BenchLatency.Result.histogram()
        /// Emulator send → serve's arrival.
        var link = BenchLatency.Result.histogram()
        /// Arrival → the tick of the frame that took it.
        var wait = BenchLatency.Result.histogram()
        /// Tick → the app received a frame carrying it.
        var out = BenchLatency.Result.histogram()
        /// Notifications serve recorded in the window (one per PERC and send: field and light
        /// of one notification are one).
        var notifications = 0
        /// Recorded, but no frame at or after its tick reached the app within 1 s.
        var notSeenByApp = 0
        /// Most notifications one frame took.
        var largestFrame = 0
        var frames = 0
    }

    static func analyse(recorded: [BenchLatency.Recorded], from: Seconds, to: Seconds,
                        app: BenchFrameReceipts) -> Result {
        var result = Result()
        struct Key: Hashable { var tangible: TangibleID; var deviceTime: UInt32 }
        var seen = Set<Key>()
        var perTick: [Seconds: Int] = [:]
        func ns(_ s: Seconds) -> UInt64 { UInt64(max(0, s) * 1e9) }
        for r in recorded where r.arrival >= from && r.arrival <= to {
            guard let tick = r.tick, seen.insert(Key(tangible: r.tangible, deviceTime: r.deviceTime)).inserted else { continue }
            result.notifications += 1
            perTick[tick, default: 0] += 1
            guard let received = app.firstReceipt(atOrAfter: tick), received - tick < 1 else {
                result.notSeenByApp += 1
                continue
            }
            let send = BenchLatency.sendTime(r)
            _ = result.total.record(ns(received - send))
            _ = result.excludingWait.record(ns(received - send - (tick - r.arrival)))
            _ = result.link.record(ns(r.arrival - send))
            _ = result.wait.record(ns(tick - r.arrival))
            _ = result.out.record(ns(received - tick))
        }
        result.frames = perTick.count
        result.largestFrame = perTick.values.max() ?? 0
        return result
    }
}
