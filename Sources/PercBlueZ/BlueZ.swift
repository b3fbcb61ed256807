// BlueZ's D-Bus names, error names and one typed record per BlueZ interface we use.
import Foundation
import MTKTangibles
import PercSystem

/// Names of BlueZ on D-Bus, and typed views of its objects (`Adapter`, `Device`,
/// `GattService`, `GattCharacteristic`) over the properties the mirror keeps.
public enum BlueZ {
    public static let service = "org.bluez"
    static let root: DBusObjectPath = "/"
    static let base: DBusObjectPath = "/org/bluez"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"
    static let agentManager = "org.bluez.AgentManager1"
    static let agent = "org.bluez.Agent1"
    public static let adapterInterface = "org.bluez.Adapter1"
    public static let deviceInterface = "org.bluez.Device1"
    static let gattServiceInterface = "org.bluez.GattService1"
    static let gattCharacteristicInterface = "org.bluez.GattCharacteristic1"

    /// `org.bluez.Error.*` names we act on.
    public enum ErrorName {
        static let prefix = "org.bluez.Error."
        static let inProgress = "org.bluez.Error.InProgress"
        static let alreadyConnected = "org.bluez.Error.AlreadyConnected"
        static let alreadyExists = "org.bluez.Error.AlreadyExists"
        static let notReady = "org.bluez.Error.NotReady"
        static let notConnected = "org.bluez.Error.NotConnected"
        static let notSupported = "org.bluez.Error.NotSupported"
        static let notPermitted = "org.bluez.Error.NotPermitted"
        static let failed = "org.bluez.Error.Failed"
        static let rejected = "org.bluez.Error.Rejected"
        static let canceled = "org.bluez.Error.Canceled"
        public static let doesNotExist = "org.bluez.Error.DoesNotExist"
    }

    /// Device path of an address on an adapter: `/org/bluez/hci0/dev_AA_BB_…`.
    static func devicePath(adapter: DBusObjectPath, address: String) -> DBusObjectPath {
        adapter.appending("dev_" + address.uppercased().replacingOccurrences(of: ":", with: "_"))
    }

    /// True for `AA:BB:CC:DD:EE:FF` (hex, either case).
    public static func isAddress(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }

    // MARK: typed records

    public struct Adapter: Hashable, Sendable {
        public var path: DBusObjectPath
        var properties: Properties
        var address: String { properties.string("Address") ?? "" }
        var name: String { properties.string("Alias") ?? properties.string("Name") ?? path.rawValue }
        var powered: Bool { properties.bool("Powered") ?? false }
        var discovering: Bool { properties.bool("Discovering") ?? false }
    }

    public struct Device: Hashable, Sendable {
        public var path: DBusObjectPath
        var properties: Properties
        public var address: String { properties.string("Address") ?? "" }
        public var name: String { properties.string("Alias") ?? properties.string("Name") ?? "" }
        public var adapter: DBusObjectPath? { properties.objectPath("Adapter") }
        /// nil when BlueZ has none or reports 127, which HCI defines as "RSSI not available"
        /// (btvirt and some controllers send it in every advertising report).
        public var rssi: Int? { properties.int("RSSI").flatMap { $0 == 127 ? nil : $0 } }
        var uuids: [String] { properties.strings("UUIDs") }
        public var paired: Bool { properties.bool("Paired") ?? false }
        var trusted: Bool { properties.bool("Trusted") ?? false }
        public var connected: Bool { properties.bool("Connected") ?? false }
        var servicesResolved: Bool { properties.bool("ServicesResolved") ?? false }
        /// The PERC profile its advertised services say, if any.
        public var advertisedProfile: PercProfile? { PercGattLayout.profile(forServiceUUIDs: uuids) }
    }

    struct GattService: Hashable, Sendable {
        var path: DBusObjectPath
        var properties: Properties
        var uuid: String { (properties.string("UUID") ?? "").lowercased() }
        var device: DBusObjectPath? { properties.objectPath("Device") }
    }

    struct GattCharacteristic: Hashable, Sendable {
        var path: DBusObjectPath
        var properties: Properties
        var uuid: String { (properties.string("UUID") ?? "").lowercased() }
        var service: DBusObjectPath? { properties.objectPath("Service") }
        var flags: [String] { properties.strings("Flags") }
        var notifying: Bool { properties.bool("Notifying") ?? false }
        var canNotify: Bool { flags.contains("notify") || flags.contains("indicate") }
        var canWrite: Bool { flags.contains("write") || flags.contains("write-without-response") }
    }

    /// The properties of one interface of one object, variants unwrapped.
    public struct Properties: Hashable, Sendable {
        var values: [String: DBusValue] = [:]

        init(_ values: [String: DBusValue] = [:]) { self.values = values }

        /// Parses an `a{sv}` value; other values give an empty set.
        init(dictionary: DBusValue) { values = dictionary.stringVariantDictionary ?? [:] }

        mutating func merge(_ changed: Properties, invalidated: [String] = []) {
            values.merge(changed.values) { _, new in new }
            for name in invalidated { values[name] = nil }
        }

        func string(_ key: String) -> String? { values[key]?.string }
        func bool(_ key: String) -> Bool? { values[key]?.bool }
        func objectPath(_ key: String) -> DBusObjectPath? { values[key]?.objectPath }
        public func int(_ key: String) -> Int? { values[key]?.int }
        func strings(_ key: String) -> [String] { values[key]?.stringArray ?? [] }
        func bytes(_ key: String) -> [UInt8]? { values[key]?.bytes }
    }
}
