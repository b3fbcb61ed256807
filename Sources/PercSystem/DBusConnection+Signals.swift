// Signal subscriptions by match rule: as an AsyncStream, or as a handler on the loop thread.

extension DBusConnection {
    /// Signals matching `rule`, as a stream. Returns once the bus has the rule, so every
    /// matching signal sent after this call returns is delivered. Ending the iteration (or
    /// cancelling its task) removes the rule; the stream finishes when the connection closes.
    public func signals(
        matching rule: DBusMatchRule,
        bufferingPolicy: AsyncStream<DBusSignal>.Continuation.BufferingPolicy = .unbounded
    ) async throws -> AsyncStream<DBusSignal> {
        try await stream(of: DBusSignal.self, matching: [rule], bufferingPolicy: bufferingPolicy) { $0 }
    }

    /// Calls `handler` for each signal matching `rule`, directly on the connection's event
    /// loop thread: the lowest-latency path. The handler must be quick and must not block
    /// (hand work off); it must not wait for replies on this connection.
    /// Delivery lasts as long as the returned subscription (cancel it or let it go).
    public func subscribe(
        _ rule: DBusMatchRule, handler: @escaping @Sendable (DBusSignal) -> Void
    ) async throws -> DBusSignalSubscription {
        try await subscribe(rule, deliver: handler, finish: {})
    }

    /// Hands `sender`'s changes of only `interface`.`property` (a byte array) on `path` to
    /// `handler` on the event loop thread, read in place without building a `DBusSignal`: the
    /// StartNotify path of GATT notifications. Other signals on that path go to the
    /// subscribers as usual. It adds no rule to the bus: a subscription of this connection
    /// with `sender` as sender must bring those signals (see `DBusPropertyBytesSink`).
    /// Replaces an earlier handler of `path`; returns an id for `removePropertyBytesHandler`.
    public func onPropertyBytes(sender: String, path: DBusObjectPath, interface: String, property: String,
                         handler: @escaping @Sendable (_ bytes: [UInt8], _ receivedAtNanoseconds: UInt64) -> Void) -> UInt64 {
        loop.addPropertySink(path: path, sender: sender, interface: interface, property: property, deliver: handler)
    }

    /// Removes the handler `id` of `onPropertyBytes` (a newer handler of the same path stays).
    public func removePropertyBytesHandler(_ id: UInt64) { loop.removePropertySink(id: id) }

    func subscribe(
        _ rule: DBusMatchRule, deliver: @escaping @Sendable (DBusSignal) -> Void, finish: @escaping @Sendable () -> Void
    ) async throws -> DBusSignalSubscription {
        try rule.validate()
        // Register locally first: a signal may follow the AddMatch reply immediately.
        let subscriber = try loop.addSubscriber(rule: rule, deliver: deliver, finish: finish)
        do {
            try await DBusMatchRegistration.add(rule, on: self)
        } catch {
            loop.removeSubscriber(id: subscriber.id)
            throw error
        }
        return DBusSignalSubscription(loop: loop, subscriberID: subscriber.id, rule: rule)
    }

    /// One stream fed by several rules; `transform` runs on the loop thread and may drop a signal (nil).
    func stream<Element: Sendable>(
        of: Element.Type, matching rules: [DBusMatchRule],
        bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded,
        transform: @escaping @Sendable (DBusSignal) -> Element?
    ) async throws -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        var subscriptions: [DBusSignalSubscription] = []
        do {
            for rule in rules {
                subscriptions.append(try await subscribe(rule, deliver: { signal in
                    if let element = transform(signal) { continuation.yield(element) }
                }, finish: { continuation.finish() }))
            }
        } catch {
            subscriptions.forEach { $0.cancel() }
            throw error
        }
        let held = subscriptions
        continuation.onTermination = { _ in held.forEach { $0.cancel() } }
        return stream
    }
}
