// Owning bus names (RequestName/ReleaseName), asking for owners, watching NameOwnerChanged.

extension DBusConnection {
    /// Asks the bus for `name`. Check the reply: only `.primaryOwner`/`.alreadyOwner` mean we own it.
    public func requestName(_ name: String, flags: DBusRequestNameFlags = [.doNotQueue]) async throws -> DBusRequestNameReply {
        try DBusNames.checkBusName(name)
        let code = try await callBus("RequestName", [.string(name), .uint32(flags.rawValue)]).value(as: "u")
        guard case .uint32(let raw) = code, let reply = DBusRequestNameReply(rawValue: raw) else {
            throw DBusError(.invalidSignature, "RequestName returned an unknown code \(code)")
        }
        return reply
    }

    /// Gives `name` back.
    @discardableResult
    func releaseName(_ name: String) async throws -> DBusReleaseNameReply {
        try DBusNames.checkBusName(name)
        let code = try await callBus("ReleaseName", [.string(name)]).value(as: "u")
        guard case .uint32(let raw) = code, let reply = DBusReleaseNameReply(rawValue: raw) else {
            throw DBusError(.invalidSignature, "ReleaseName returned an unknown code \(code)")
        }
        return reply
    }

    /// The unique name owning `name`, or nil when nobody does.
    public func nameOwner(of name: String) async throws -> String? {
        try DBusNames.checkBusName(name)
        do {
            return try await callBus("GetNameOwner", [.string(name)]).value(as: "s").string
        } catch let error as DBusError where error.name == DBusError.Name.nameHasNoOwner.rawValue {
            return nil
        }
    }

    /// Owner changes of `name` (or of every name when nil), e.g. `org.bluez` going away and coming back.
    func nameOwnerChanges(of name: String? = nil) async throws -> AsyncStream<DBusNameOwnerChange> {
        try await stream(of: DBusNameOwnerChange.self, matching: [Self.nameOwnerRule(name)]) { DBusNameOwnerChange($0) }
    }

    /// The same on the loop thread (see `subscribe(_:handler:)`).
    func onNameOwnerChange(of name: String? = nil,
                                  _ handler: @escaping @Sendable (DBusNameOwnerChange) -> Void) async throws -> DBusSignalSubscription {
        try await subscribe(Self.nameOwnerRule(name)) { signal in
            if let change = DBusNameOwnerChange(signal) { handler(change) }
        }
    }

    static func nameOwnerRule(_ name: String?) -> DBusMatchRule {
        DBusMatchRule(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                      member: "NameOwnerChanged", arguments: name.map { [0: $0] } ?? [:])
    }
}
