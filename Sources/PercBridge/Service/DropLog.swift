// Counts input dropped on purpose in `percbridge_input_dropped_total{reason}` and logs it at most once a second.
import Logging
import Synchronization

/// One per service: every bound that drops something reports here. The log line sums what
/// was dropped since the last line, so a flood costs one line a second, not one per packet.
public final class DropLog: Sendable {
    private let logger: Logger
    private let metrics: Mutex<ServiceMetrics?>
    private let clock: @Sendable () -> Double
    private let pending = Mutex<(last: Double, counts: [String: Int], example: String)>((-.infinity, [:], ""))

    init(logger: Logger, metrics: ServiceMetrics?, clock: @escaping @Sendable () -> Double = MonotonicClock.now) {
        self.logger = logger; self.metrics = Mutex(metrics); self.clock = clock
    }

    /// The service's metrics exist after its inputs are made; counts before are only logged.
    func attach(_ m: ServiceMetrics) { metrics.withLock { $0 = m } }

    /// `counts` by reason; `example` says where (shown in the log line, clipped).
    public func dropped(_ counts: [String: Int], example: String) {
        if let m = metrics.withLock({ $0 }) { for (reason, n) in counts { m.inputDropped(reason: reason, by: n) } }
        let now = clock()
        let line: String? = pending.withLock { p in
            for (reason, n) in counts { p.counts[reason, default: 0] += n }
            if p.example.isEmpty { p.example = example }
            guard now - p.last >= 1 else { return nil }
            let text = p.counts.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
            defer { p = (now, [:], "") }
            return "input dropped by a bound: \(text) (e.g. \(InputText.clip(p.example))); counted in percbridge_input_dropped_total, logged at most once a second"
        }
        if let line { logger.warning("\(line)") }
    }
}
