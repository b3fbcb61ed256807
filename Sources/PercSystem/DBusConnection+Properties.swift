// Client side of org.freedesktop.DBus.Properties: Get, GetAll, Set and PropertiesChanged.

extension DBusConnection {
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// One property's value (variant unwrapped).
    public func property(_ name: String, interface: String, path: DBusObjectPath, destination: String,
                         timeout: Duration = .seconds(25)) async throws -> DBusValue {
        let reply = try await call(destination: destination, path: path, interface: Self.propertiesInterface,
                                   member: "Get", arguments: [.string(interface), .string(name)], timeout: timeout)
        return try reply.value(as: "v").unwrapped
    }

    /// All properties of one interface (variants unwrapped).
    public func allProperties(interface: String, path: DBusObjectPath, destination: String,
                              timeout: Duration = .seconds(25)) async throws -> [String: DBusValue] {
        let reply = try await call(destination: destination, path: path, interface: Self.propertiesInterface,
                                   member: "GetAll", arguments: [.string(interface)], timeout: timeout)
        guard let properties = try reply.value(as: "a{sv}").stringVariantDictionary else {
            throw DBusError(.invalidSignature, "GetAll(\(interface)) on \(path) returned no a{sv}")
        }
        return properties
    }

    /// Sets one property (`value` is wrapped in a variant here).
    public func setProperty(_ name: String, to value: DBusValue, interface: String, path: DBusObjectPath,
                            destination: String, timeout: Duration = .seconds(25)) async throws {
        let variant: DBusValue = if case .variant = value { value } else { .variant(value) }
        _ = try await call(destination: destination, path: path, interface: Self.propertiesInterface, member: "Set",
                           arguments: [.string(interface), .string(name), variant], timeout: timeout)
    }

    /// PropertiesChanged signals from `sender`, for one object (`path`), or every object
    /// below `pathNamespace`, optionally of one `interface` only.
    public func propertiesChanges(sender: String? = nil, path: DBusObjectPath? = nil, pathNamespace: DBusObjectPath? = nil,
                                  interface: String? = nil) async throws -> AsyncStream<DBusPropertiesChange> {
        let rule = Self.propertiesRule(sender, path, pathNamespace, interface)
        return try await stream(of: DBusPropertiesChange.self, matching: [rule]) { DBusPropertiesChange($0) }
    }

    /// The same, delivered on the event loop thread: the fast path for GATT notifications
    /// (`StartNotify` values arrive as PropertiesChanged of `Value`). See `subscribe(_:handler:)`.
    public func onPropertiesChange(sender: String? = nil, path: DBusObjectPath? = nil, pathNamespace: DBusObjectPath? = nil,
                                   interface: String? = nil,
                                   _ handler: @escaping @Sendable (DBusPropertiesChange) -> Void) async throws -> DBusSignalSubscription {
        try await subscribe(Self.propertiesRule(sender, path, pathNamespace, interface)) { signal in
            if let change = DBusPropertiesChange(signal) { handler(change) }
        }
    }

    private static func propertiesRule(_ sender: String?, _ path: DBusObjectPath?, _ pathNamespace: DBusObjectPath?,
                                       _ interface: String?) -> DBusMatchRule {
        DBusMatchRule(sender: sender, path: path, pathNamespace: pathNamespace, interface: propertiesInterface,
                      member: "PropertiesChanged", arguments: interface.map { [0: $0] } ?? [:])
    }
}
