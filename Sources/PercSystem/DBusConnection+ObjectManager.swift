// Client side of org.freedesktop.DBus.ObjectManager: GetManagedObjects and its signals.

/// path → interface → properties (what GetManagedObjects returns).
typealias DBusManagedObjects = [DBusObjectPath: [String: [String: DBusValue]]]

extension DBusConnection {
    static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"

    /// The whole tree below the ObjectManager at `path` of `destination`.
    /// To mirror it without races: subscribe to `objectManagerEvents` first, then call this.
    func managedObjects(destination: String, path: DBusObjectPath = .root,
                               timeout: Duration = .seconds(25)) async throws -> DBusManagedObjects {
        let reply = try await call(destination: destination, path: path, interface: Self.objectManagerInterface,
                                   member: "GetManagedObjects", timeout: timeout)
        guard case .dictionary(_, _, let entries) = try reply.value(as: "a{oa{sa{sv}}}") else {
            throw DBusError(.invalidSignature, "GetManagedObjects of \(destination) returned no a{oa{sa{sv}}}")
        }
        var objects: DBusManagedObjects = [:]
        for entry in entries {
            guard case .objectPath(let objectPath) = entry.key, let interfaces = DBusObjectManagerEvent.interfaces(entry.value) else {
                throw DBusError(.invalidSignature, "GetManagedObjects of \(destination) returned a malformed entry")
            }
            objects[objectPath] = interfaces
        }
        return objects
    }

    /// InterfacesAdded/InterfacesRemoved of the ObjectManager at `path`, in arrival order.
    func objectManagerEvents(sender: String, path: DBusObjectPath = .root) async throws -> AsyncStream<DBusObjectManagerEvent> {
        try await stream(of: DBusObjectManagerEvent.self, matching: Self.objectManagerRules(sender, path)) {
            DBusObjectManagerEvent($0)
        }
    }

    /// The same on the loop thread (see `subscribe(_:handler:)`); keep both subscriptions.
    func onObjectManagerEvent(sender: String, path: DBusObjectPath = .root,
                                     _ handler: @escaping @Sendable (DBusObjectManagerEvent) -> Void) async throws -> [DBusSignalSubscription] {
        var subscriptions: [DBusSignalSubscription] = []
        for rule in Self.objectManagerRules(sender, path) {
            subscriptions.append(try await subscribe(rule) { signal in
                if let event = DBusObjectManagerEvent(signal) { handler(event) }
            })
        }
        return subscriptions
    }

    private static func objectManagerRules(_ sender: String, _ path: DBusObjectPath) -> [DBusMatchRule] {
        ["InterfacesAdded", "InterfacesRemoved"].map {
            DBusMatchRule(sender: sender, path: path, interface: objectManagerInterface, member: $0)
        }
    }
}
