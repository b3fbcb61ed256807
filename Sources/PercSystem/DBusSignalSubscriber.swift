// One local receiver of signals: its match rule and the closures that deliver and finish.

/// A registered receiver of signals, called on the event loop thread.
final class DBusSignalSubscriber: Sendable {
    let id: UInt64
    let rule: DBusMatchRule
    /// Called on the event loop thread for every matching signal: must not block.
    let deliver: @Sendable (DBusSignal) -> Void
    /// Called once when the connection closes.
    let finish: @Sendable () -> Void

    init(id: UInt64, rule: DBusMatchRule, deliver: @escaping @Sendable (DBusSignal) -> Void,
         finish: @escaping @Sendable () -> Void) {
        self.id = id
        self.rule = rule
        self.deliver = deliver
        self.finish = finish
    }
}
