// Which GATT service and characteristics each PERC profile uses (PROTOCOLS.md §1, §2).
import MTKTangibles

/// The UUIDs of a PERC profile: the advertised service, the characteristic that notifies
/// sensor values and the one the host writes (subscriptions, actuators).
struct PercGattLayout: Hashable, Sendable {
    var profile: PercProfile
    var service: String
    var notify: String
    var write: String

    static let percV1 = PercGattLayout(profile: .percV1, service: "aee40001-d949-4291-83f3-e445a245d3e5",
                                       notify: "aee40002-d949-4291-83f3-e445a245d3e5",
                                       write: "aee40004-d949-4291-83f3-e445a245d3e5")
    static let percV1Config = "aee40003-d949-4291-83f3-e445a245d3e5"
    static let batteryService = bluetoothUUID(0x180F)
    static let batteryLevel = bluetoothUUID(0x2A19)
    static let mtkSerial = PercGattLayout(profile: .mtkSerial, service: bluetoothUUID(0xFFE0),
                                          notify: bluetoothUUID(0xFFE1), write: bluetoothUUID(0xFFE1))
    static let nordicUART = PercGattLayout(profile: .nordicUART, service: "6e400001-b5a3-f393-e0a9-e50e24dcca9e",
                                           notify: "6e400003-b5a3-f393-e0a9-e50e24dcca9e",
                                           write: "6e400002-b5a3-f393-e0a9-e50e24dcca9e")

    static let all: [PercGattLayout] = [.percV1, .mtkSerial, .nordicUART]

    static func of(_ profile: PercProfile) -> PercGattLayout {
        switch profile {
        case .percV1: .percV1
        case .mtkSerial: .mtkSerial
        case .nordicUART: .nordicUART
        }
    }

    /// The profile a device speaks, judged from its advertised or resolved service UUIDs
    /// (PERC v1 first: new firmware may keep a serial service for old hosts).
    static func profile(forServiceUUIDs uuids: some Sequence<String>) -> PercProfile? {
        let set = Set(uuids.map { $0.lowercased() })
        return all.first { set.contains($0.service) }?.profile
    }

    /// The 128-bit form of a 16-bit Bluetooth SIG UUID.
    static func bluetoothUUID(_ short: UInt16) -> String {
        let hex = String(short, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex + "-0000-1000-8000-00805f9b34fb"
    }
}
