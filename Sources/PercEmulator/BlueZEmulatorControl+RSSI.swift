// The emulator's SetRSSI (scripts/bluez-emulator/README.md), kept apart from the other emulator calls.
import PercSystem
import PercBlueZ

extension BlueZEmulatorControl {
    /// Sets a device's RSSI; BlueZ-like, it is announced only while the adapter discovers.
    /// Returns whether the emulator announced it.
    @discardableResult
    public func setRSSI(_ address: String, _ dBm: Int16) async throws -> Bool {
        try await call("SetRSSI", [.string(address), .int16(dBm)]).arguments.first?.bool ?? false
    }

    /// Starts discovery on an adapter as another BlueZ client would (`bluetoothctl scan on`),
    /// and returns once the adapter says `Discovering` (bluetoothd, and the emulator, answer
    /// the call a moment before they announce it).
    public func startDiscoveryAsAnotherClient(adapter: DBusObjectPath = "/org/bluez/hci0") async throws {
        try await connection.call(destination: BlueZ.service, path: adapter, interface: BlueZ.adapterInterface,
                                  member: "StartDiscovery", timeout: .seconds(5))
        for _ in 0..<100 {
            let reply = try await connection.call(destination: BlueZ.service, path: adapter, interface: "org.freedesktop.DBus.Properties",
                                                  member: "Get", arguments: [.string(BlueZ.adapterInterface), .string("Discovering")],
                                                  timeout: .seconds(5))
            if case .variant(.boolean(true))? = reply.arguments.first { return }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
