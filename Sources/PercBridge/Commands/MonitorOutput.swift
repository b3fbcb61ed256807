// What `percbridge monitor` prints for each event and status change (text or JSON lines).
import Foundation
import MTKTangibles
import Synchronization
import PercSystem
import PercBlueZ

/// Formats monitor output; called from the links' threads, prints one whole line at a time.
final class MonitorOutput: Sendable {
    struct Line: Codable {
        var time: String
        var arrival: Double
        var address: String
        var profile: String?
        var kind: String
        var value: Int?
        var seq: Int?
        var deviceTime: UInt32?
        var latencyMs: Double?
        var jitterMs: Double?
        var lost: Int?
        var status: String?

        enum CodingKeys: String, CodingKey {
            case time, arrival, address, profile, kind, value, seq, lost, status
            case deviceTime = "device_time_us"
            case latencyMs = "latency_ms"
            case jitterMs = "jitter_ms"
        }
    }

    private struct PerPerc {
        var address: String
        var profile: String?
        var clock = DeviceClockLatency()
        var reportedLost = 0
        var latencies: [Double] = []
    }

    let json: Bool
    private let percs: Mutex<[TangibleID: PerPerc]>
    private let lock = Mutex(())

    init(addresses: [String], json: Bool) {
        self.json = json
        var map: [TangibleID: PerPerc] = [:]
        for (i, a) in addresses.enumerated() { map[i + 1] = PerPerc(address: a) }
        percs = Mutex(map)
    }

    /// ISO 8601 UTC with milliseconds. Formatted from the clock by hand: a Foundation date
    /// formatter made per line cost more than the line (monitor fell behind at 10 PERCs × 100 Hz).
    static func wallClock() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var t = ts.tv_sec
        var tm = tm()
        gmtime_r(&t, &tm)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(tm.tm_year) + 1900, Int(tm.tm_mon) + 1, Int(tm.tm_mday),
                      Int(tm.tm_hour), Int(tm.tm_min), Int(tm.tm_sec), Int(ts.tv_nsec / 1_000_000))
    }

    func status(tangible: TangibleID, _ status: PercLinkStatus) {
        let (address, profile) = percs.withLock { m -> (String, String?) in
            if case .connected(let p, _) = status { m[tangible]?.profile = p }
            return (m[tangible]?.address ?? "?", m[tangible]?.profile)
        }
        let now = NotifySocket.monotonicNow()
        if json {
            emit(BlueZCLI.jsonLine(Line(time: Self.wallClock(), arrival: now, address: address, profile: profile,
                                        kind: "status", status: status.description)))
        } else {
            emit("\(Self.clockText())  \(address)  \(status)")
        }
    }

    func event(_ event: SensorEvent, lostSoFar: Int) {
        let (address, profile, timing, newlyLost) = percs.withLock { m -> (String, String?, (latency: Double?, jitter: Double)?, Int) in
            guard var p = m[event.tangible] else { return ("?", nil, nil, 0) }
            var timing: (latency: Double?, jitter: Double)?
            if let dt = event.deviceTime {
                timing = p.clock.observe(deviceTime: dt, arrival: event.arrival)
                if let l = timing?.latency { p.latencies.append(l) }
            }
            let newly = max(0, lostSoFar - p.reportedLost)
            p.reportedLost = max(p.reportedLost, lostSoFar)
            m[event.tangible] = p
            return (p.address, p.profile, timing, newly)
        }
        if json {
            emit(BlueZCLI.jsonLine(Line(time: Self.wallClock(), arrival: event.arrival, address: address, profile: profile,
                                        kind: event.kind.rawValue, value: event.value, seq: event.sequence.map(Int.init),
                                        deviceTime: event.deviceTime, latencyMs: timing?.latency.map { $0 * 1000 },
                                        jitterMs: timing.map { $0.jitter * 1000 }, lost: lostSoFar)))
            return
        }
        var text = "\(Self.clockText())  \(address)  \(event.kind.rawValue)=\(event.value)"
        if let seq = event.sequence { text += "  seq \(seq)" }
        if newlyLost > 0 { text += "  (\(newlyLost) lost before this)" }
        if let t = timing {
            if let l = t.latency { text += String(format: "  latency %.2f ms", l * 1000) }
            else { text += String(format: "  +%.1f ms over fastest", t.jitter * 1000) }
        }
        emit(text)
    }

    /// Latencies seen for one PERC (shared-clock devices only: the emulator).
    func latencies(tangible: TangibleID) -> [Double] { percs.withLock { $0[tangible]?.latencies ?? [] } }

    /// Local time of day, `HH:mm:ss.SSS`.
    private static func clockText() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var t = ts.tv_sec
        var tm = tm()
        localtime_r(&t, &tm)
        return String(format: "%02d:%02d:%02d.%03d", Int(tm.tm_hour), Int(tm.tm_min), Int(tm.tm_sec), Int(ts.tv_nsec / 1_000_000))
    }

    private func emit(_ line: String) {
        lock.withLock { _ in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }
}
