// Per-tangible link figures from sensor notifications: connects, rate, sequence gaps, device-time latency and drift.
import Histogram
import MTKTangibles

/// Learns a PERC's link quality from its notifications. Sequence gaps give lost
/// notifications; device time minus arrival gives the delay above the fastest notification
/// and, by a least-squares line, the device clock's drift (PERC GATT v1 only).
struct LinkAccumulator: Sendable {
    private(set) var figures = LinkFigures()
    private(set) var upSince: Seconds?
    private var lastSequence: UInt16?
    private var received = 0
    private(set) var sawSequence = false
    /// Device time unwrapped (µs), and the last raw value.
    private var wraps: UInt64 = 0
    private var lastDeviceTime: UInt32?
    /// (arrival, arrival − device time) pairs, seconds, of the newest notifications: the
    /// latency figures. Bounded, so a service running for weeks holds and sorts no more per
    /// scrape than after 41 s at 100 Hz (issue 36: it kept up to 200,000, 3.2 MB a PERC).
    private var recent = OffsetRing(capacity: 4096)
    /// The lower envelope of all offsets since the first (the smallest of each time bucket,
    /// buckets widened as the run grows): the drift over the whole run, in bounded memory.
    private var envelope = OffsetEnvelope()
    /// Drift needs a long enough run for latency noise (tens of ms) to stay below ~100 ppm.
    static let minDriftSpan: Seconds = 60

    var isUp: Bool { upSince != nil }
    /// What the offsets hold now (for the memory bound's tests).
    var memoryFigures: (recent: Int, buckets: Int) { (recent.values.count, envelope.points.count) }

    /// For a sequenced notification: the previous one's arrival when some were lost in between.
    private(set) var lostSince: Seconds?
    private var lastArrival: Seconds?

    /// Returns whether `e` carried a sequence number.
    @discardableResult
    mutating func observe(_ e: SensorEvent) -> Bool {
        switch e.kind {
        case .link:
            if e.value == 1 {
                guard upSince == nil else { return false }
                figures.connects += 1
                if figures.disconnects > 0 { figures.reconnects += 1 }
                upSince = e.arrival
            } else {
                guard let since = upSince else { return false }
                figures.disconnects += 1
                figures.connectedSeconds += max(0, e.arrival - since)
                upSince = nil
            }
            // A new connection may restart the PERC's counters: gaps span no link change.
            lastSequence = nil
            return false
        case .battery:
            figures.batteryLast = e.value
            figures.batteryMin = min(figures.batteryMin ?? e.value, e.value)
        case .field, .light, .heartbeat:
            break
        }
        // A notification before any link event means the link was up when the data began.
        if upSince == nil && figures.connects == 0 { figures.connects = 1; upSince = e.arrival }
        figures.notifications += 1
        if let dt = e.deviceTime { observeDeviceTime(dt, arrival: e.arrival) }
        guard let seq = e.sequence else { return false }
        let before = figures.lost ?? 0
        observeSequence(seq)
        lostSince = (figures.lost ?? 0) > before ? lastArrival : nil
        lastArrival = e.arrival
        return true
    }

    private mutating func observeSequence(_ seq: UInt16) {
        sawSequence = true
        received += 1
        guard let last = lastSequence else { lastSequence = seq; return }
        let step = seq &- last
        // A repeat or a step back (half the sequence space) is reordering, not loss.
        if step == 0 || step >= 32768 { figures.outOfOrder += 1; return }
        figures.lost = (figures.lost ?? 0) + Int(step - 1)
        lastSequence = seq
    }

    private mutating func observeDeviceTime(_ dt: UInt32, arrival: Seconds) {
        if let last = lastDeviceTime, dt < last, last - dt > UInt32.max / 2 { wraps += 1 }
        lastDeviceTime = dt
        let device = Double(wraps << 32 | UInt64(dt)) / 1e6
        recent.append((arrival, arrival - device))
        envelope.add(arrival, arrival - device)
    }

    /// The figures as of `now` (an open connection counts up to `now`).
    func report(now: Seconds, profile: PercProfile?) -> LinkFigures {
        var f = figures
        if let since = upSince { f.connectedSeconds += max(0, now - since) }
        if f.connectedSeconds > 0 { f.notificationsPerSecond = Double(f.notifications) / f.connectedSeconds }
        if sawSequence {
            let lost = f.lost ?? 0
            f.lost = lost
            f.lossRate = received + lost > 0 ? Double(lost) / Double(received + lost) : nil
        }
        if envelope.count >= 2, let first = envelope.first, let last = envelope.last {
            // Drift from the lower envelope (the fastest notification of each tenth of the
            // run): latency noise averages out of the minima, not out of all samples.
            let span = last - first
            var slope = 0.0
            if span >= Self.minDriftSpan && envelope.count >= 20 {
                let bins = 10
                var minima: [(Double, Double)?] = Array(repeating: nil, count: bins)
                for (t, o) in envelope.points {
                    let i = min(bins - 1, Int((t - first) / span * Double(bins)))
                    if minima[i].map({ o < $0.1 }) ?? true { minima[i] = (t, o) }
                }
                slope = Self.fitLine(minima.compactMap { $0 }).slope
                f.clockDriftPPM = slope * 1e6
            }
            let residuals = recent.values.map { $0.1 - slope * ($0.0 - first) }
            let fastest = residuals.min() ?? 0
            var h = LatencyFigures.histogram()
            for r in residuals { _ = h.record(UInt64(max(0, (r - fastest) * 1e6).rounded())) }
            f.latencyAboveFastest = LatencyFigures(h)
        }
        if !sawSequence || envelope.count == 0 {
            switch profile {
            case .mtkSerial?, .nordicUART?:
                f.note = "the \(profile!.rawValue) profile has no sequence numbers or device time: loss, latency and drift cannot be measured"
            default:
                f.note = f.notifications == 0 ? "no notifications" : "notifications carried no sequence numbers or device time"
            }
        }
        return f
    }

    /// Least-squares line through (x, y); slope 0 when x does not vary.
    static func fitLine(_ pts: [(Double, Double)]) -> (slope: Double, intercept: Double) {
        let n = Double(pts.count)
        let x0 = pts[0].0, y0 = pts[0].1
        var sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
        for (x, y) in pts { let dx = x - x0, dy = y - y0; sx += dx; sy += dy; sxx += dx * dx; sxy += dx * dy }
        let den = n * sxx - sx * sx
        let slope = den > 1e-12 ? (n * sxy - sx * sy) / den : 0
        let b = (sy - slope * sx) / n
        return (slope, y0 + b - slope * x0)
    }
}

/// The newest `capacity` (arrival, offset) pairs.
struct OffsetRing: Sendable {
    let capacity: Int
    private var items: [(Double, Double)] = []
    private var next = 0

    init(capacity: Int) { self.capacity = capacity }

    mutating func append(_ item: (Double, Double)) {
        if items.count < capacity { items.append(item); return }
        items[next] = item
        next = (next + 1) % capacity
    }

    /// In no particular order (the figures drawn from them do not need one).
    var values: [(Double, Double)] { items }
}

/// The smallest offset of each time bucket since the first sample; when there would be more
/// than `maxBuckets`, the buckets double in width (pairs merged, the smaller kept). Drift over
/// hours needs only the envelope's shape, not every sample.
struct OffsetEnvelope: Sendable {
    static let maxBuckets = 2048
    private var width: Double = 1
    private(set) var first: Double?
    private(set) var last: Double?
    /// Samples seen, and (bucket index, arrival, offset) of each bucket's smallest offset.
    private(set) var count = 0
    private var buckets: [(index: Int, t: Double, o: Double)] = []

    var points: [(Double, Double)] { buckets.map { ($0.t, $0.o) } }

    mutating func add(_ t: Double, _ o: Double) {
        guard t.isFinite, o.isFinite else { return }
        let origin = first ?? t
        first = origin
        last = max(last ?? t, t)
        count += 1
        let index = Int(((t - origin) / width).rounded(.down))
        if let b = buckets.last, b.index == index {
            if o < b.o { buckets[buckets.count - 1] = (index, t, o) }
        } else {
            buckets.append((index, t, o))
        }
        if buckets.count > Self.maxBuckets { widen() }
    }

    private mutating func widen() {
        width *= 2
        var merged: [(index: Int, t: Double, o: Double)] = []
        merged.reserveCapacity(buckets.count / 2 + 1)
        for b in buckets {
            let index = b.index / 2
            if let m = merged.last, m.index == index {
                if b.o < m.o { merged[merged.count - 1] = (index, b.t, b.o) }
            } else {
                merged.append((index, b.t, b.o))
            }
        }
        buckets = merged
    }
}

