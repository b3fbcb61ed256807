// Typed calls to the BlueZ emulator's control interface (org.percbridge.BlueZEmulator1).
import PercSystem

/// Drives the emulator (scripts/bluez-emulator/README.md lists what each call does).
public struct BlueZEmulatorControl: Sendable {
    static let name = "org.percbridge.BlueZEmulator"
    static let path: DBusObjectPath = "/org/percbridge/BlueZEmulator"
    static let interface = "org.percbridge.BlueZEmulator1"

    let connection: DBusConnection

    public init(connection: DBusConnection) { self.connection = connection }

    @discardableResult
    func call(_ member: String, _ args: [DBusValue] = []) async throws -> DBusReply {
        try await connection.call(destination: Self.name, path: Self.path, interface: Self.interface, member: member,
                                  arguments: args, timeout: .seconds(10))
    }

    public func addPerc(_ address: String, name: String, profile: String, rssi: Int16 = -60, adapter: String = "hci0") async throws {
        try await call("AddPerc", [.string(adapter), .string(address), .string(name), .string(profile), .int16(rssi)])
    }

    public func setPairMode(_ address: String, _ mode: String) async throws { try await call("SetPairMode", [.string(address), .string(mode)]) }
    public func setAcquireNotify(_ address: String, _ allowed: Bool) async throws {
        try await call("SetAcquireNotify", [.string(address), .boolean(allowed)])
    }
    public func setInRange(_ address: String, _ inRange: Bool) async throws { try await call("SetInRange", [.string(address), .boolean(inRange)]) }
    public func dropLink(_ address: String) async throws { try await call("DropLink", [.string(address)]) }
    /// The link drops and BlueZ loses track of it: Connect answers ok, Connected stays false until a Disconnect.
    public func dropLinkStale(_ address: String) async throws { try await call("DropLinkStale", [.string(address)]) }
    /// The link drops, and the next connect is not signalled: Connected reads true (GetAll) but
    /// no PropertiesChanged says so; ServicesResolved is signalled (real 5.66 when the link's
    /// ATT channel comes up before bluetoothd handles its connection event).
    public func dropLinkUnsignalled(_ address: String) async throws { try await call("DropLinkUnsignalled", [.string(address)]) }
    /// Connect to `address` while it is out of range waits for it (no answer) instead of failing.
    public func setConnectWaits(_ address: String, _ waits: Bool) async throws { try await call("SetConnectWaits", [.string(address), .boolean(waits)]) }
    /// `btmgmt power off|on` on adapter `name`.
    public func setPowered(_ name: String, _ powered: Bool) async throws { try await call("SetPowered", [.string(name), .boolean(powered)]) }
    public func setPaired(_ address: String, _ paired: Bool) async throws { try await call("SetPaired", [.string(address), .boolean(paired)]) }
    public func startStream(_ address: String, rate: Double, count: UInt32) async throws {
        try await call("StartStream", [.string(address), .double(rate), .uint32(count)])
    }
    public func startStreamAll(rate: Double, count: UInt32) async throws { try await call("StartStreamAll", [.double(rate), .uint32(count)]) }
    /// Like `startStreamAll`, with the PERCs' phases spread over one period instead of in step.
    public func startStreamAllStaggered(rate: Double, count: UInt32) async throws {
        try await call("StartStreamAllStaggered", [.double(rate), .uint32(count)])
    }
    /// µs from each v1 notification's stamp to the emulator's send() returning, since the last stream start.
    public func sendCosts() async throws -> [UInt32] {
        try await call("SendCosts").arguments.first?.array?.compactMap { $0.int.map { UInt32(clamping: $0) } } ?? []
    }
    public func stopStream(_ address: String) async throws { try await call("StopStream", [.string(address)]) }

    @discardableResult
    public func sendV1(_ address: String, field: UInt8, light: UInt8, raw: UInt16 = 0) async throws -> Bool {
        try await call("SendV1", [.string(address), .byte(field), .byte(light), .uint16(raw)]).arguments.first?.bool ?? false
    }

    public func dropSequence(_ address: String, _ n: UInt16) async throws { try await call("DropSequence", [.string(address), .uint16(n)]) }

    @discardableResult
    public func sendRaw(_ address: String, _ bytes: [UInt8]) async throws -> Bool {
        try await call("SendRaw", [.string(address), .bytes(bytes)]).arguments.first?.bool ?? false
    }

    @discardableResult
    public func sendMtk(_ address: String, _ text: String, chunk: UInt32) async throws -> Int {
        try await call("SendMtk", [.string(address), .string(text), .uint32(chunk)]).arguments.first?.int ?? 0
    }

    public func stats(_ address: String) async throws -> [String: DBusValue] {
        try await call("Stats", [.string(address)]).arguments.first?.stringVariantDictionary ?? [:]
    }

    public func writes(_ address: String) async throws -> [[UInt8]] {
        try await call("Writes", [.string(address)]).arguments.first?.array?.compactMap(\.bytes) ?? []
    }

    public func unplugAdapter(_ name: String) async throws { try await call("UnplugAdapter", [.string(name)]) }
    public func plugAdapter(_ name: String, powered: Bool) async throws { try await call("PlugAdapter", [.string(name), .boolean(powered)]) }
    public func vanish(seconds: Double) async throws { try await call("Vanish", [.double(seconds)]) }
    public func returnBluetoothd() async throws { try await call("Return") }
    /// bluetoothd SIGKILLed: like `vanish`, but connected links stay in the kernel (the next
    /// bluetoothd shows them Connected without services; the kernel drops them 2 s after the kill).
    public func killBluetoothd(seconds: Double, connectedAfter: Double = 0.02) async throws {
        try await call("KillBluetoothd", [.double(seconds), .double(connectedAfter)])
    }
}
