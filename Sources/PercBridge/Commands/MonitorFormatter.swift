// The lines `percbridge monitor` prints for events and status changes (text, or JSON made by hand).
import Glibc
import MTKTangibles
import PercBlueZ

/// Turns what the links report into output lines, in the order they were reported.
///
/// Owned by monitor's writer thread (`MonitorOutput`): the per-PERC state (profile, device
/// clock estimate, losses already shown) is touched by that thread only, and its size does
/// not grow with the number of notifications. (It did: every latency went into an array that
/// nothing read, and copying that array on each event made every line slower than the one
/// before — 19 µs per line at the start, 117 µs on average over 2 minutes at 4 × 1000 Hz,
/// until monitor fell behind the PERCs.)
///
/// JSON lines are written by hand, with the keys in the order `JSONEncoder`'s `.sortedKeys`
/// gave them and absent values left out, as before.
struct MonitorFormatter {
    /// What a link reported, with the wall clock read when it was handed over.
    enum Item: Sendable {
        case event(SensorEvent, lostSoFar: Int, wall: WallTime)
        case status(TangibleID, PercLinkStatus, arrival: Double, wall: WallTime)
    }

    /// CLOCK_REALTIME, read on the link's thread (the line may be formatted a moment later).
    struct WallTime: Sendable {
        var seconds: Int
        var nanoseconds: Int

        static func now() -> WallTime {
            var ts = timespec()
            clock_gettime(CLOCK_REALTIME, &ts)
            return WallTime(seconds: ts.tv_sec, nanoseconds: ts.tv_nsec)
        }
    }

    private struct PerPerc {
        var address: String
        var profile: String?
        var clock = DeviceClockLatency()
        var reportedLost = 0
    }

    let json: Bool
    /// Indexed by tangible - 1 (monitor numbers the PERCs 1…n in the order given).
    private var percs: [PerPerc]

    init(addresses: [String], json: Bool) {
        self.json = json
        percs = addresses.map { PerPerc(address: $0) }
    }

    /// Appends the item's line (with its newline) to `out`.
    mutating func append(_ item: Item, to out: inout [UInt8]) {
        switch item {
        case .event(let event, let lostSoFar, let wall): appendEvent(event, lostSoFar: lostSoFar, wall: wall, to: &out)
        case .status(let tangible, let status, let arrival, let wall): appendStatus(status, of: tangible, arrival: arrival, wall: wall, to: &out)
        }
    }

    private mutating func appendStatus(_ status: PercLinkStatus, of tangible: TangibleID, arrival: Double, wall: WallTime,
                                       to out: inout [UInt8]) {
        let i = tangible - 1
        guard percs.indices.contains(i) else { return }
        if case .connected(let profile, _) = status { percs[i].profile = profile }
        let p = percs[i]
        if json {
            var line = MonitorJSONLine()
            line.string("address", p.address)
            line.number("arrival", arrival)
            line.string("kind", "status")
            if let profile = p.profile { line.string("profile", profile) }
            line.string("status", status.description)
            line.string("time", Self.isoTime(wall))
            line.end(into: &out)
        } else {
            out.append(contentsOf: "\(Self.clockText(wall))  \(p.address)  \(status)\n".utf8)
        }
    }

    private mutating func appendEvent(_ event: SensorEvent, lostSoFar: Int, wall: WallTime, to out: inout [UInt8]) {
        let i = event.tangible - 1
        guard percs.indices.contains(i) else { return }
        var timing: (latency: Double?, jitter: Double)?
        if let dt = event.deviceTime { timing = percs[i].clock.observe(deviceTime: dt, arrival: event.arrival) }
        let newlyLost = max(0, lostSoFar - percs[i].reportedLost)
        percs[i].reportedLost = max(percs[i].reportedLost, lostSoFar)
        let p = percs[i]
        if json {
            var line = MonitorJSONLine()
            line.string("address", p.address)
            line.number("arrival", event.arrival)
            if let dt = event.deviceTime { line.integer("device_time_us", Int(dt)) }
            if let t = timing { line.number("jitter_ms", t.jitter * 1000) }
            line.string("kind", event.kind.rawValue)
            if let l = timing?.latency { line.number("latency_ms", l * 1000) }
            line.integer("lost", lostSoFar)
            if let profile = p.profile { line.string("profile", profile) }
            if let seq = event.sequence { line.integer("seq", Int(seq)) }
            line.string("time", Self.isoTime(wall))
            line.integer("value", event.value)
            line.end(into: &out)
            return
        }
        var text = "\(Self.clockText(wall))  \(p.address)  \(event.kind.rawValue)=\(event.value)"
        if let seq = event.sequence { text += "  seq \(seq)" }
        if newlyLost > 0 { text += "  (\(newlyLost) lost before this)" }
        if let t = timing {
            if let l = t.latency { text += "  latency \(Self.fixed(l * 1000, decimals: 2)) ms" }
            else { text += "  +\(Self.fixed(t.jitter * 1000, decimals: 1)) ms over fastest" }
        }
        text += "\n"
        out.append(contentsOf: text.utf8)
    }

    // MARK: - pieces of a line

    /// ISO 8601 UTC with milliseconds (`2026-11-26T10:21:07.114Z`).
    static func isoTime(_ wall: WallTime) -> String {
        var t = wall.seconds
        var tm = tm()
        gmtime_r(&t, &tm)
        return "\(Int(tm.tm_year) + 1900)-\(padded(Int(tm.tm_mon) + 1, 2))-\(padded(Int(tm.tm_mday), 2))T"
            + "\(padded(Int(tm.tm_hour), 2)):\(padded(Int(tm.tm_min), 2)):\(padded(Int(tm.tm_sec), 2)).\(padded(wall.nanoseconds / 1_000_000, 3))Z"
    }

    /// Local time of day, `HH:mm:ss.SSS`.
    static func clockText(_ wall: WallTime) -> String {
        var t = wall.seconds
        var tm = tm()
        localtime_r(&t, &tm)
        return "\(padded(Int(tm.tm_hour), 2)):\(padded(Int(tm.tm_min), 2)):\(padded(Int(tm.tm_sec), 2)).\(padded(wall.nanoseconds / 1_000_000, 3))"
    }

    static func padded(_ n: Int, _ width: Int) -> String {
        let digits = String(n)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// `x` with `decimals` digits after the point, rounded (what `%.Nf` prints for these values).
    static func fixed(_ x: Double, decimals: Int) -> String {
        var scale = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(x) * Double(scale)).rounded()
        guard scaled < 9e15 else { return String(x) }
        let n = Int(scaled)
        let sign = x < 0 && n != 0 ? "-" : ""
        return decimals == 0 ? "\(sign)\(n)" : "\(sign)\(n / scale).\(padded(n % scale, decimals))"
    }
}
