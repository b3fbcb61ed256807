// An object we export on the bus: its interfaces, its property values, and its signals.
import Synchronization

/// An exported object. Keeps its property values; `setProperty` stores a value and emits
/// `PropertiesChanged`; `emit` sends one of its declared signals. Exported until
/// `unexport()` or until the connection closes.
public final class DBusExportedObject: Sendable {
    public let path: DBusObjectPath
    let interfaces: [String: DBusInterface]
    private let values: Mutex<[String: [String: DBusValue]]>
    private let loop: DBusEventLoop

    init(path: DBusObjectPath, interfaces: [DBusInterface], loop: DBusEventLoop) {
        self.path = path
        self.interfaces = Dictionary(interfaces.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        var initial: [String: [String: DBusValue]] = [:]
        for interface in interfaces {
            for property in interface.properties { initial[interface.name, default: [:]][property.name] = property.initialValue }
        }
        self.values = Mutex(initial)
        self.loop = loop
    }

    /// The current value of a property (nil if unknown or not set).
    public func property(_ name: String, interface: String) -> DBusValue? {
        values.withLock { $0[interface]?[name] }
    }

    /// Stores a property value and, if it changed and `emitChanged`, emits PropertiesChanged.
    public func setProperty(_ name: String, interface: String, to value: DBusValue, emitChanged: Bool = true) throws {
        let value = try checkedPropertyValue(name, interface: interface, value)
        let changed = values.withLock { all in
            defer { all[interface, default: [:]][name] = value }
            return all[interface]?[name] != value
        }
        if changed, emitChanged { try emitPropertiesChanged(interface: interface, changed: [name: value]) }
    }

    /// Emits one of the object's declared signals; the arguments must match its signature.
    public func emit(_ signal: String, interface: String, arguments: [DBusValue] = [], destination: String? = nil) throws {
        guard let description = interfaces[interface]?.signals.first(where: { $0.name == signal }) else {
            throw DBusError(.unknownMethod, "\(path) declares no signal \(interface).\(signal)")
        }
        let signature = DBusValue.signature(of: arguments)
        guard signature == description.signature else {
            throw DBusError(.invalidArgs, "signal \(interface).\(signal) takes '\(description.signature)', not '\(signature)'")
        }
        try loop.send(DBusMessageRef.signal(path: path, interface: interface, member: signal,
                                            destination: destination, arguments: arguments))
    }

    /// Stops answering calls for this object.
    public func unexport() { loop.exports.remove(self) }

    // MARK: - For the registry (loop thread)

    func allProperties(of interface: String) -> [String: DBusValue] {
        values.withLock { $0[interface] ?? [:] }
    }

    /// Remote Set: checks access, type and `willSet`, stores, emits PropertiesChanged.
    func remoteSet(_ name: String, interface: String, value: DBusValue) throws {
        guard let property = interfaces[interface]?.properties.first(where: { $0.name == name }) else {
            throw DBusError(.unknownProperty, "\(path) has no property \(interface).\(name)")
        }
        guard property.access == .readwrite else {
            throw DBusError(.propertyReadOnly, "property \(interface).\(name) is read-only")
        }
        let value = try checkedPropertyValue(name, interface: interface, value)
        try property.willSet?(value)
        try setProperty(name, interface: interface, to: value)
    }

    private func checkedPropertyValue(_ name: String, interface: String, _ value: DBusValue) throws -> DBusValue {
        guard let property = interfaces[interface]?.properties.first(where: { $0.name == name }) else {
            throw DBusError(.unknownProperty, "\(path) has no property \(interface).\(name)")
        }
        let value = value.unwrapped == value || property.signature == "v" ? value : value.unwrapped
        guard value.signature == property.signature else {
            throw DBusError(.invalidArgs, "property \(interface).\(name) is '\(property.signature)', not '\(value.signature)'")
        }
        try DBusMarshaller.check(value, depth: 0)
        return value
    }

    private func emitPropertiesChanged(interface: String, changed: [String: DBusValue]) throws {
        try loop.send(DBusMessageRef.signal(
            path: path, interface: DBusConnection.propertiesInterface, member: "PropertiesChanged",
            arguments: [.string(interface), .stringVariantDictionary(changed), .stringArray([])]))
    }
}
