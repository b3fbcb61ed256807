// InterfacesAdded / InterfacesRemoved of an org.freedesktop.DBus.ObjectManager, as values.

/// What an ObjectManager told us about its tree.
enum DBusObjectManagerEvent: Sendable, Hashable {
    /// `InterfacesAdded(o path, a{sa{sv}} interfaces)`: interface → properties.
    case added(DBusObjectPath, [String: [String: DBusValue]], receivedAtNanoseconds: UInt64)
    /// `InterfacesRemoved(o path, as interfaces)`.
    case removed(DBusObjectPath, [String], receivedAtNanoseconds: UInt64)

    init?(_ signal: DBusSignal) {
        let a = signal.arguments
        guard a.count == 2, case .objectPath(let path) = a[0] else { return nil }
        switch signal.member {
        case "InterfacesAdded":
            guard let interfaces = Self.interfaces(a[1]) else { return nil }
            self = .added(path, interfaces, receivedAtNanoseconds: signal.receivedAtNanoseconds)
        case "InterfacesRemoved":
            guard let names = a[1].stringArray else { return nil }
            self = .removed(path, names, receivedAtNanoseconds: signal.receivedAtNanoseconds)
        default:
            return nil
        }
    }

    /// `a{sa{sv}}` → interface → properties; nil for any other shape.
    static func interfaces(_ value: DBusValue) -> [String: [String: DBusValue]]? {
        guard case .dictionary(let key, let valueType, let entries) = value, key == "s", valueType == "a{sv}" else { return nil }
        var result: [String: [String: DBusValue]] = [:]
        for entry in entries {
            guard case .string(let name) = entry.key, let properties = entry.value.stringVariantDictionary else { return nil }
            result[name] = properties
        }
        return result
    }
}
