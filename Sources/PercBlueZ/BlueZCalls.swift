// The BlueZ method calls PercBridge makes, as typed Swift functions (errors stay DBusError).
import PercSystem

/// Typed calls to bluetoothd over one connection.
public struct BlueZCalls: Sendable {
    let connection: DBusConnection

    private func call(_ path: DBusObjectPath, _ interface: String, _ member: String, _ args: [DBusValue] = [],
                      timeout: Duration = .seconds(25)) async throws -> DBusReply {
        try await connection.call(destination: BlueZ.service, path: path, interface: interface, member: member,
                                  arguments: args, timeout: timeout)
    }

    static let noOptions = DBusValue.dictionary(key: "s", value: "v", [])

    // MARK: Adapter1

    func setPowered(_ adapter: DBusObjectPath, _ on: Bool) async throws {
        try await setProperty(adapter, BlueZ.adapterInterface, "Powered", .boolean(on))
    }

    /// LE only, our service UUIDs; BlueZ merges filters of all clients, so callers still
    /// check each device against their own filter.
    func setDiscoveryFilter(_ adapter: DBusObjectPath, uuids: [String]) async throws {
        let filter = DBusValue.dictionary(key: "s", value: "v", [
            DBusDictEntry(.string("Transport"), .variant(.string("le"))),
            DBusDictEntry(.string("UUIDs"), .variant(.stringArray(uuids))),
            DBusDictEntry(.string("DuplicateData"), .variant(.boolean(false))),
        ])
        _ = try await call(adapter, BlueZ.adapterInterface, "SetDiscoveryFilter", [filter], timeout: .seconds(5))
    }

    func startDiscovery(_ adapter: DBusObjectPath) async throws {
        _ = try await call(adapter, BlueZ.adapterInterface, "StartDiscovery", timeout: .seconds(5))
    }

    func stopDiscovery(_ adapter: DBusObjectPath) async throws {
        _ = try await call(adapter, BlueZ.adapterInterface, "StopDiscovery", timeout: .seconds(5))
    }

    /// Unpairs and forgets `device` on `adapter`.
    public func removeDevice(_ device: DBusObjectPath, from adapter: DBusObjectPath) async throws {
        _ = try await call(adapter, BlueZ.adapterInterface, "RemoveDevice", [.objectPath(device)], timeout: .seconds(10))
    }

    // MARK: Device1

    func pair(_ device: DBusObjectPath, timeout: Duration) async throws {
        _ = try await call(device, BlueZ.deviceInterface, "Pair", timeout: timeout)
    }

    func cancelPairing(_ device: DBusObjectPath) async throws {
        _ = try await call(device, BlueZ.deviceInterface, "CancelPairing", timeout: .seconds(2))
    }

    func connect(_ device: DBusObjectPath, timeout: Duration) async throws {
        _ = try await call(device, BlueZ.deviceInterface, "Connect", timeout: timeout)
    }

    func disconnect(_ device: DBusObjectPath) async throws {
        _ = try await call(device, BlueZ.deviceInterface, "Disconnect", timeout: .seconds(5))
    }

    func setTrusted(_ device: DBusObjectPath) async throws {
        try await setProperty(device, BlueZ.deviceInterface, "Trusted", .boolean(true))
    }

    // MARK: GattCharacteristic1

    /// AcquireNotify: a SOCK_SEQPACKET socket (we own the descriptor) and the ATT MTU.
    func acquireNotify(_ characteristic: DBusObjectPath) async throws -> (fd: Int32, mtu: Int) {
        let reply = try await call(characteristic, BlueZ.gattCharacteristicInterface, "AcquireNotify", [Self.noOptions],
                                   timeout: .seconds(5))
        guard reply.arguments.count == 2, case .unixFD(let handle) = reply.arguments[0],
              case .uint16(let mtu) = reply.arguments[1], let fd = handle.take() else {
            throw DBusError(name: "org.freedesktop.DBus.Error.InvalidSignature",
                            message: "AcquireNotify answered '\(reply.signature)', expected (h, q)")
        }
        return (fd, Int(mtu))
    }

    func startNotify(_ characteristic: DBusObjectPath) async throws {
        _ = try await call(characteristic, BlueZ.gattCharacteristicInterface, "StartNotify", timeout: .seconds(5))
    }

    func stopNotify(_ characteristic: DBusObjectPath) async throws {
        _ = try await call(characteristic, BlueZ.gattCharacteristicInterface, "StopNotify", timeout: .seconds(5))
    }

    func writeValue(_ characteristic: DBusObjectPath, _ bytes: [UInt8], withResponse: Bool) async throws {
        let options = DBusValue.dictionary(key: "s", value: "v", [
            DBusDictEntry(.string("type"), .variant(.string(withResponse ? "request" : "command"))),
        ])
        _ = try await call(characteristic, BlueZ.gattCharacteristicInterface, "WriteValue",
                           [.bytes(bytes), options], timeout: .seconds(5))
    }

    func readValue(_ characteristic: DBusObjectPath) async throws -> [UInt8] {
        let reply = try await call(characteristic, BlueZ.gattCharacteristicInterface, "ReadValue", [Self.noOptions],
                                   timeout: .seconds(5))
        return reply.arguments.first?.bytes ?? []
    }

    // MARK: AgentManager1

    func registerAgent(_ path: DBusObjectPath, capability: String = "NoInputNoOutput") async throws {
        _ = try await call(BlueZ.base, BlueZ.agentManager, "RegisterAgent", [.objectPath(path), .string(capability)],
                           timeout: .seconds(5))
    }

    func requestDefaultAgent(_ path: DBusObjectPath) async throws {
        _ = try await call(BlueZ.base, BlueZ.agentManager, "RequestDefaultAgent", [.objectPath(path)], timeout: .seconds(5))
    }

    private func setProperty(_ path: DBusObjectPath, _ interface: String, _ name: String, _ value: DBusValue) async throws {
        _ = try await call(path, BlueZ.properties, "Set", [.string(interface), .string(name), .variant(value)],
                           timeout: .seconds(5))
    }

    public init(connection: DBusConnection) {
        self.connection = connection
    }
}
