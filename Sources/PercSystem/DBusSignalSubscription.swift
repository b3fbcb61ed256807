// A live signal subscription: ends (RemoveMatch) on cancel() or when the handle is released.
import Synchronization

/// Keeps a signal subscription alive. `cancel()` (or releasing the last reference) removes
/// the local handler and the rule from the bus.
public final class DBusSignalSubscription: Sendable {
    private let loop: DBusEventLoop
    private let subscriberID: UInt64
    private let rule: DBusMatchRule
    private let cancelled = Atomic<Bool>(false)

    init(loop: DBusEventLoop, subscriberID: UInt64, rule: DBusMatchRule) {
        self.loop = loop
        self.subscriberID = subscriberID
        self.rule = rule
    }

    deinit { cancel() }

    /// Stops delivery at once and tells the bus to drop the rule. Safe to call twice.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .relaxed) else { return }
        guard loop.removeSubscriber(id: subscriberID) else { return }
        DBusMatchRegistration.remove(rule, on: loop)
    }
}
