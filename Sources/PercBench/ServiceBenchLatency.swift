// `bench service`: emulator send → TUIO packet latency, from field transitions matched with serve's --record file.
import Foundation
import Histogram
import MTKTangibles
import PercRuntime

/// The latency phase: PERC field-off (its tangible leaves TUIO) and field-on with a fresh
/// marker triple (its tangible appears). The bench notes when it asked the emulator to send
/// and when the TUIO packet showing the change arrived; serve's recording then gives, for the
/// same notification, the emulator's send time (the value's device time: the emulator's
/// CLOCK_MONOTONIC µs), serve's arrival time and the tick of the frame that took it.
struct BenchLatency {
    struct Transition: Sendable {
        var perc: Int
        var tangible: TangibleID
        var fieldOn: Bool
        /// Bench clock before the SendV1 call (the send happens after it).
        var called: Seconds
        /// Receive time of the first TUIO packet showing the change (nil: not seen within 1 s).
        var tuio: Seconds?
    }

    /// One field notification as serve recorded it, with the frame that took it.
    struct Recorded {
        var tangible: TangibleID
        var value: Int
        var deviceTime: UInt32
        var arrival: Seconds
        var tick: Seconds?
    }

    struct Result: Sendable {
        static func histogram() -> Histogram<UInt64> {
            Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        }
        var total = histogram()
        var fieldOn = histogram()
        var fieldOff = histogram()
        /// Total minus the wait for the next frame tick.
        var excludingWait = histogram()
        /// Emulator send → serve's arrival time (BlueZ emulator, socket, PercLink).
        var link = histogram()
        /// Arrival → the tick of the frame that took it (the 120 Hz quantisation).
        var wait = histogram()
        /// Tick → TUIO packet received (engine step, outputs, UDP, the bench's receive).
        var out = histogram()
        var requested = 0
        var notSeenInTUIO = 0
        var notRecorded = 0
        var samples: Int { Int(total.totalCount) }
        var lost: Int { notSeenInTUIO + notRecorded }
    }

    /// Reads the `sensor` (field) and `frame` lines of serve's recording.
    static func recordedFieldEvents(path: String) throws -> [Recorded] {
        try recordedSensorEvents(path: path, kinds: [.field])
    }

    /// Whether a line of serve's recording is a `frame` entry. Keys are sorted: a frame line
    /// starts with "kind", one cut while no app drew with "drawing" first.
    static func isFrameLine(_ line: Substring) -> Bool {
        line.hasPrefix("{\"kind\":\"frame\"") || line.hasPrefix("{\"drawing\":false,\"kind\":\"frame\"")
    }

    /// Reads the `sensor` lines of these kinds and the `frame` lines of serve's recording:
    /// each event with the tick of the frame that took it (the first frame line after it).
    static func recordedSensorEvents(path: String, kinds: Set<SensorKind>) throws -> [Recorded] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let decoder = JSONDecoder()
        var out: [Recorded] = []
        var waiting: [Int] = []  // indices into `out` not yet in a frame
        for line in text.split(separator: "\n") {
            // Keys are sorted: sensor lines start with "kind" (contacts are skipped unread).
            guard line.hasPrefix("{\"kind\":\"sensor\"") || isFrameLine(line) else { continue }
            guard let entry = try? decoder.decode(RecordEntry.self, from: Data(line.utf8)) else { continue }
            switch entry {
            case .sensor(let e) where kinds.contains(e.kind):
                guard let deviceTime = e.deviceTime else { continue }
                waiting.append(out.count)
                out.append(Recorded(tangible: e.tangible, value: e.value, deviceTime: deviceTime, arrival: e.arrival))
            case .frame(_, let time, _):
                for i in waiting { out[i].tick = time }
                waiting.removeAll()
            default: break
            }
        }
        return out
    }

    /// The emulator's send time: its device time is CLOCK_MONOTONIC µs mod 2^32, unwrapped
    /// against the arrival time (same clock, same host).
    static func sendTime(_ r: Recorded) -> Seconds {
        let arrivalUs = UInt32(truncatingIfNeeded: UInt64(r.arrival * 1e6))
        return r.arrival - Double(arrivalUs &- r.deviceTime) / 1e6
    }

    static func analyse(_ transitions: [Transition], recorded: [Recorded], log: ((String) -> Void)? = nil) -> Result {
        var result = Result()
        result.requested = transitions.count
        var used = Set<Int>()
        func ns(_ s: Seconds) -> UInt64 { UInt64(max(0, s) * 1e9) }
        for t in transitions {
            guard let tuio = t.tuio else { result.notSeenInTUIO += 1; continue }
            let value = t.fieldOn ? 1 : 0
            guard let i = recorded.indices.first(where: { i in
                !used.contains(i) && recorded[i].tangible == t.tangible && recorded[i].value == value
                    && recorded[i].arrival >= t.called
            }), let tick = recorded[i].tick else { result.notRecorded += 1; continue }
            used.insert(i)
            let r = recorded[i]
            let send = sendTime(r)
            let total = tuio - send
            _ = result.total.record(ns(total))
            _ = (t.fieldOn ? result.fieldOn.record(ns(total)) : result.fieldOff.record(ns(total)))
            _ = result.link.record(ns(r.arrival - send))
            _ = result.wait.record(ns(tick - r.arrival))
            _ = result.out.record(ns(tuio - tick))
            _ = result.excludingWait.record(ns(total - (tick - r.arrival)))
            log?(String(format: "tangible %d field %@: called %.6f send %+.3f ms arrival %+.3f tick %+.3f tuio %+.3f",
                        t.tangible, t.fieldOn ? "on" : "off", t.called, (send - t.called) * 1e3, (r.arrival - t.called) * 1e3,
                        (tick - t.called) * 1e3, (tuio - t.called) * 1e3))
        }
        return result
    }
}
