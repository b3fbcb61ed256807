// Counts input dropped on purpose in `percbridge_input_dropped_total{reason}` and logs it at most once a second.
import Logging
import Synchronization
import PercSystem

/// One per service: every bound that drops something reports here. The log line sums what
/// was dropped since the last line, so a flood costs one line a second, not one per packet.
public final class DropLog: Sendable {
    private let logger: Logger
    private let count = CallbackSlot<(reason: String, n: Int)>()
    private let clock: @Sendable () -> Double
    private let pending = Mutex<(last: Double, counts: [String: Int], example: String)>((-.infinity, [:], ""))

    public init(logger: Logger, clock: @escaping @Sendable () -> Double = MonotonicClock.now) {
        self.logger = logger; self.clock = clock
    }

    /// `count` adds to the service's metric (`percbridge_input_dropped_total{reason}`); the
    /// metrics exist after the inputs are made, and counts before are only logged.
    public func attach(count: @escaping @Sendable (_ reason: String, _ n: Int) -> Void) { self.count.set(count) }

    /// `counts` by reason; `example` says where (shown in the log line, clipped).
    public func dropped(_ counts: [String: Int], example: String) {
        for (reason, n) in counts { count((reason, n)) }
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
