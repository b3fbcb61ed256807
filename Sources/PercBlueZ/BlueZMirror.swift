// A mirror of BlueZ's object tree: adapters, devices, GATT services and characteristics, typed.
import Foundation
import Logging
import Synchronization
import PercSystem

/// Keeps a copy of BlueZ's objects, following its signals, and tells listeners what changed.
///
/// Order (as BLUEZ-NOTES.md and Bleak do it): subscribe to InterfacesAdded/Removed,
/// PropertiesChanged and NameOwnerChanged(org.bluez) first, then GetManagedObjects; every
/// signal updates the mirror before any listener hears of it. An adapter's removal drops
/// everything under its path (BlueZ does not promise removals of the children). When
/// bluetoothd leaves the bus the mirror empties; when it returns, a new snapshot is taken.
///
/// Listeners and waiters run on the D-Bus connection's event loop thread: they must be quick.
///
/// GATT notifications (StartNotify path: a PropertiesChanged of `GattCharacteristic1` that
/// changes only `Value`) are the hot path — 1000/s for 10 PERCs at 100 Hz. For a
/// characteristic with a value sink (`onValue`) the connection reads them in place and hands
/// the bytes straight to that sink (`DBusConnection.onPropertyBytes`): no decoding into
/// values, no listeners or waiters (nothing in the tree they watch changed), and the mirror
/// does not keep that characteristic's `Value` (nothing reads it).
public final class BlueZMirror: Sendable {
    public typealias Listener = @Sendable (BlueZChange) -> Void
    /// A characteristic's new value and its arrival (CLOCK_MONOTONIC seconds).
    typealias ValueSink = @Sendable ([UInt8], Double) -> Void

    let connection: DBusConnection
    let logger: Logger

    private struct State {
        var objects: [DBusObjectPath: [String: BlueZ.Properties]] = [:]
        var owner: String?
        var listeners: [Int: Listener] = [:]
        var nextListener = 1
        /// Value sink ids → the connection's handler ids (`onPropertyBytes`).
        var valueSinks: [Int: UInt64] = [:]
        var subscriptions: [DBusSignalSubscription] = []
        var generation = 0
        /// Grows with every snapshot and every adapter that appears: waiters that back off
        /// wake early when it moves (something worth retrying for happened).
        var epoch = 0
        /// Signals that came while a snapshot was on its way (nil: none pending). They are
        /// replayed onto the snapshot when it arrives: the reply is handled on another thread
        /// than the signals, so a Connected=true or ServicesResolved=true that bluetoothd sent
        /// after answering GetManagedObjects would otherwise be overwritten by the older
        /// snapshot — seen on a real bluetoothd restart, whose auto-connects follow at once.
        var buffered: [DBusSignal]?
        var bufferOverflowed = false
        /// Adapters seen going from powered to off (`btmgmt power off`, `bluetoothctl power
        /// off`): someone chose that, so nobody here switches them back on.
        var switchedOff: Set<DBusObjectPath> = []
        /// Whether `[bluetooth] adapter` has been on the bus since we started.
        var configuredAdapterSeen = false
        /// When each adapter appeared while we watched (CLOCK_MONOTONIC seconds): added to the
        /// tree, or in the snapshot of a bluetoothd that came back. Adapters there at our own
        /// start have none (they are old).
        var adapterSince: [DBusObjectPath: Double] = [:]
        /// When bluetoothd took the name again (its next snapshot dates its adapters from it).
        var returnedAt: Double?
    }

    /// At most this many signals wait for a snapshot; beyond it the snapshot is retaken.
    static let bufferLimit = 20_000

    private let state = Mutex(State())

    /// The adapter PERCs are used through (`[bluetooth] adapter`); nil: any.
    let adapterName: String?

    init(connection: DBusConnection, adapter: String? = nil, logger: Logger) {
        self.connection = connection
        self.adapterName = adapter
        self.logger = logger
    }

    deinit {
        for s in state.withLock({ $0.subscriptions }) { s.cancel() }
    }

    // MARK: start

    /// Subscribes to BlueZ's signals, then takes the first snapshot. Throws only for D-Bus
    /// failures of our own connection; a missing bluetoothd is a state, not an error.
    func start() async throws {
        let handler: @Sendable (DBusSignal) -> Void = { [weak self] in self?.handle($0) }
        var subs: [DBusSignalSubscription] = []
        subs.append(try await connection.subscribe(
            DBusMatchRule(sender: BlueZ.service, interface: BlueZ.objectManager, member: "InterfacesAdded"), handler: handler))
        subs.append(try await connection.subscribe(
            DBusMatchRule(sender: BlueZ.service, interface: BlueZ.objectManager, member: "InterfacesRemoved"), handler: handler))
        subs.append(try await connection.subscribe(
            DBusMatchRule(sender: BlueZ.service, pathNamespace: BlueZ.base, interface: BlueZ.properties,
                          member: "PropertiesChanged"), handler: handler))
        subs.append(try await connection.subscribe(
            DBusMatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
                          arguments: [0: BlueZ.service]), handler: handler))
        state.withLock { $0.subscriptions = subs; $0.buffered = [] }
        await snapshot()
    }

    /// Replaces the mirror with GetManagedObjects (bluetoothd absent: leaves it empty).
    private func snapshot() async {
        let generation = state.withLock { $0.generation }
        do {
            let reply = try await connection.call(destination: BlueZ.service, path: BlueZ.root,
                                                  interface: BlueZ.objectManager, member: "GetManagedObjects",
                                                  timeout: .seconds(10))
            var objects: [DBusObjectPath: [String: BlueZ.Properties]] = [:]
            if case .dictionary(_, _, let entries)? = reply.arguments.first {
                for entry in entries {
                    guard case .objectPath(let path) = entry.key else { continue }
                    objects[path] = Self.interfaces(entry.value)
                }
            }
            let applied = state.withLock { s -> (replayed: Int, retake: Bool)? in
                // A vanish/return while we waited makes this snapshot stale.
                guard s.generation == generation else { return nil }
                s.objects = objects
                s.owner = reply.sender
                s.epoch += 1
                if let back = s.returnedAt {
                    for (path, interfaces) in objects where interfaces[BlueZ.adapterInterface] != nil { s.adapterSince[path] = back }
                }
                let pending = s.buffered ?? []
                let retake = s.bufferOverflowed
                s.buffered = retake ? [] : nil
                s.bufferOverflowed = false
                if retake { return (0, true) }
                for signal in pending { _ = Self.apply(signal, to: &s) }
                return (pending.count, false)
            }
            if let applied {
                let replayed = applied.replayed > 0 ? ", \(applied.replayed) later signals replayed onto it" : ""
                logger.info("BlueZ: snapshot of \(objects.count) objects (\(adapters.count) adapters, \(devices.count) devices)\(replayed)")
                if applied.retake {
                    logger.notice("BlueZ: more than \(Self.bufferLimit) signals came during the snapshot; taking another")
                    await snapshot()
                    return
                }
                notify(.snapshotTaken)
            }
        } catch {
            state.withLock { s in if s.generation == generation { s.buffered = nil; s.bufferOverflowed = false } }
            logger.info("BlueZ: no bluetoothd on the \(connection.bus) (\(error)); waiting for it to appear")
        }
    }

    /// Reads a device's `Device1` properties back from bluetoothd and merges what differs into
    /// the mirror, in order with the signals (`DBusConnection.callApplyingInOrder`: a signal
    /// sent after the reply cannot be overwritten by it), telling listeners as a signal would.
    /// For a change bluetoothd made without saying so: 5.66 marks a device connected without a
    /// PropertiesChanged when the link's ATT channel comes up before it handles the link's
    /// connection event (its log: `device_add_connection() Device … is already connected`).
    /// Returns the device as now mirrored; nil when it is gone or bluetoothd did not answer.
    func reread(device path: DBusObjectPath) async -> BlueZ.Device? {
        do {
            let merged = try await connection.callApplyingInOrder(
                destination: BlueZ.service, path: path, interface: BlueZ.properties, member: "GetAll",
                arguments: [.string(BlueZ.deviceInterface)], timeout: .seconds(5)) { [self] reply -> Bool in
                guard let dictionary = reply.arguments.first else { return false }
                let read = BlueZ.Properties(dictionary: dictionary)
                let changed = state.withLock { s -> BlueZ.Properties? in
                    // During a snapshot, or from a bluetoothd that has since gone: not ours to merge.
                    guard s.buffered == nil, s.owner != nil, s.owner == reply.sender,
                          let current = s.objects[path]?[BlueZ.deviceInterface] else { return nil }
                    let differing = BlueZ.Properties(read.values.filter { current.values[$0.key] != $0.value })
                    s.objects[path]![BlueZ.deviceInterface]!.merge(differing)
                    return differing
                }
                guard let changed else { return false }
                if !changed.values.isEmpty {
                    logger.info("BlueZ: \(path) read back with \(changed.values.keys.sorted().map { "\($0)=\(changed.values[$0]!.bool.map(String.init) ?? "…")" }.joined(separator: ", ")), which bluetoothd had not signalled")
                    notify(.propertiesChanged(path, interface: BlueZ.deviceInterface, changed: changed, invalidated: [],
                                              arrival: MonotonicClock.now()))
                }
                return true
            }
            return merged ? device(path: path) : nil
        } catch {
            return nil
        }
    }

    // MARK: queries

    public var bluetoothdPresent: Bool { state.withLock { $0.owner != nil } }

    /// See `State.epoch`.
    var epoch: Int { state.withLock { $0.epoch } }

    /// Seconds since `adapter` appeared while we watched (it was added, or its bluetoothd came
    /// back); nil for an adapter that was there when we started.
    func adapterAge(_ adapter: DBusObjectPath, now: Double = MonotonicClock.now()) -> Double? {
        state.withLock { $0.adapterSince[adapter] }.map { max(0, now - $0) }
    }

    public var adapters: [BlueZ.Adapter] {
        records(BlueZ.adapterInterface).map { BlueZ.Adapter(path: $0.0, properties: $0.1) }
    }

    public var devices: [BlueZ.Device] {
        records(BlueZ.deviceInterface).map { BlueZ.Device(path: $0.0, properties: $0.1) }
    }

    /// The PERC's device object. With several adapters BlueZ keeps one object per adapter that
    /// saw it; when `adapterName` names an adapter that is there, only its object counts (on
    /// the real-BlueZ harness the PERCs' own adapters see each other, and a Connect on such
    /// an object made one PERC's adapter try to connect to another: links never came up).
    public func device(address: String) -> BlueZ.Device? {
        var candidates = devices.filter { $0.address.caseInsensitiveCompare(address) == .orderedSame }
        if let name = adapterName {
            // The configured adapter only, once it has been seen: while bluetoothd (re)starts
            // its adapters appear one by one, and a PERC adapter's object for the same address
            // (the real-BlueZ harness's PERC adapters see each other) would be taken meanwhile.
            // Other adapters serve only on a machine where the configured one never appeared.
            let path = DBusObjectPath(stringLiteral: "/org/bluez/\(name)")
            let seen = state.withLock { s -> Bool in
                if s.objects[path]?[BlueZ.adapterInterface] != nil { s.configuredAdapterSeen = true }
                return s.configuredAdapterSeen
            }
            if seen { candidates = candidates.filter { $0.path.parentAdapter == path } }
        }
        return candidates.max { ($0.connected ? 1 : 0, $0.paired ? 1 : 0) < ($1.connected ? 1 : 0, $1.paired ? 1 : 0) }
    }

    public func device(path: DBusObjectPath) -> BlueZ.Device? {
        state.withLock { $0.objects[path]?[BlueZ.deviceInterface] }.map { BlueZ.Device(path: path, properties: $0) }
    }

    /// Whether `adapter` was switched off while we watched (not: found off, or plugged in
    /// off): the links and discovery leave such an adapter off and wait for it.
    func switchedOff(_ adapter: DBusObjectPath) -> Bool {
        state.withLock { $0.switchedOff.contains(adapter) && $0.objects[adapter]?[BlueZ.adapterInterface]?.bool("Powered") == false }
    }

    func adapter(path: DBusObjectPath) -> BlueZ.Adapter? {
        state.withLock { $0.objects[path]?[BlueZ.adapterInterface] }.map { BlueZ.Adapter(path: path, properties: $0) }
    }

    func services(of device: DBusObjectPath) -> [BlueZ.GattService] {
        records(BlueZ.gattServiceInterface).filter { $0.0.isWithin(device) }
            .map { BlueZ.GattService(path: $0.0, properties: $0.1) }
    }

    func characteristics(of device: DBusObjectPath) -> [BlueZ.GattCharacteristic] {
        records(BlueZ.gattCharacteristicInterface).filter { $0.0.isWithin(device) }
            .map { BlueZ.GattCharacteristic(path: $0.0, properties: $0.1) }
    }

    /// The characteristic with this UUID inside the service with that UUID, on a device.
    func characteristic(device: DBusObjectPath, service: String, uuid: String) -> BlueZ.GattCharacteristic? {
        let servicePaths = Set(services(of: device).filter { $0.uuid == service }.map(\.path))
        return characteristics(of: device).filter { $0.uuid == uuid && $0.service.map(servicePaths.contains) == true }
            .min { $0.path < $1.path }
    }

    private func records(_ interface: String) -> [(DBusObjectPath, BlueZ.Properties)] {
        state.withLock { s in s.objects.compactMap { path, ifaces in ifaces[interface].map { (path, $0) } } }
            .sorted { $0.0 < $1.0 }
    }

    // MARK: listeners

    /// Adds a listener; keep the id to remove it. Listeners run on the event loop thread.
    @discardableResult
    public func addListener(_ listener: @escaping Listener) -> Int {
        state.withLock { s in
            let id = s.nextListener
            s.nextListener += 1
            s.listeners[id] = listener
            return id
        }
    }

    func removeListener(_ id: Int) {
        _ = state.withLock { $0.listeners.removeValue(forKey: id) }
    }

    /// Sends every notification of `characteristic` (a Value-only PropertiesChanged) to
    /// `sink`, on the event loop thread; replaces an earlier sink of that characteristic.
    /// Returns an id for `removeValueSink`.
    func onValue(of characteristic: DBusObjectPath, _ sink: @escaping ValueSink) -> Int {
        let handler = connection.onPropertyBytes(sender: BlueZ.service, path: characteristic,
                                                 interface: BlueZ.gattCharacteristicInterface, property: "Value") { bytes, at in
            sink(bytes, Double(at) / 1e9)
        }
        return state.withLock { s in
            let id = s.nextListener
            s.nextListener += 1
            s.valueSinks[id] = handler
            return id
        }
    }

    /// Removes the sink `id` (a newer sink of the same characteristic stays).
    func removeValueSink(_ id: Int) {
        if let handler = state.withLock({ $0.valueSinks.removeValue(forKey: id) }) {
            connection.removePropertyBytesHandler(handler)
        }
    }

    /// A notify socket of `characteristic` hung up: listeners (and waiters, whose conditions
    /// may read more than the tree) hear it as its own event.
    func notifySocketClosed(_ characteristic: DBusObjectPath) { notify(.notifySocketClosed(characteristic)) }

    private func notify(_ change: BlueZChange) {
        for listener in state.withLock({ Array($0.listeners.values) }) { listener(change) }
    }

    // MARK: signals

    private func handle(_ signal: DBusSignal) {
        if signal.member == "NameOwnerChanged" { ownerChanged(signal); return }
        let outcome = state.withLock { s -> (change: BlueZChange?, note: String?)? in
            if s.buffered != nil {
                if s.buffered!.count < Self.bufferLimit { s.buffered!.append(signal) } else { s.bufferOverflowed = true }
                return nil
            }
            return Self.apply(signal, to: &s)
        }
        guard let outcome else { return }
        if let note = outcome.note { logger.info("\(note)") }
        if let change = outcome.change { notify(change) }
    }

    /// Applies one tree signal to the mirror; returns what to tell listeners (nil: nothing
    /// known changed) and a line to log.
    private static func apply(_ signal: DBusSignal, to s: inout State) -> (change: BlueZChange?, note: String?) {
        switch signal.member {
        case "InterfacesAdded":
            guard signal.arguments.count == 2, case .objectPath(let path) = signal.arguments[0] else { return (nil, nil) }
            let added = Self.interfaces(signal.arguments[1])
            var current = s.objects[path] ?? [:]
            for (name, props) in added { current[name, default: BlueZ.Properties()].merge(props) }
            s.objects[path] = current
            if added[BlueZ.adapterInterface] != nil {
                s.epoch += 1
                s.adapterSince[path] = signal.receivedAt
            }
            return (.interfacesAdded(path, Array(added.keys)), nil)
        case "InterfacesRemoved":
            guard signal.arguments.count == 2, case .objectPath(let path) = signal.arguments[0],
                  case .array(_, let names) = signal.arguments[1] else { return (nil, nil) }
            let removed = names.compactMap(\.string)
            var droppedSubtree = 0
            if var current = s.objects[path] {
                for name in removed { current[name] = nil }
                s.objects[path] = current.isEmpty ? nil : current
                // An adapter (or device) going takes everything below it along.
                if removed.contains(BlueZ.adapterInterface) || removed.contains(BlueZ.deviceInterface) {
                    let below = s.objects.keys.filter { $0 != path && $0.isWithin(path) }
                    for p in below { s.objects[p] = nil }
                    droppedSubtree = below.count
                }
            }
            let note = removed.contains(BlueZ.adapterInterface)
                ? "BlueZ: adapter \(path) removed (dropped \(droppedSubtree) objects below it)" : nil
            return (.interfacesRemoved(path, removed), note)
        case "PropertiesChanged":
            guard signal.arguments.count >= 2, case .string(let interface) = signal.arguments[0] else { return (nil, nil) }
            let changed = BlueZ.Properties(dictionary: signal.arguments[1])
            var invalidated: [String] = []
            if signal.arguments.count > 2 { invalidated = signal.arguments[2].stringArray ?? [] }
            let path = signal.path
            guard s.objects[path] != nil else { return (nil, nil) }
            if interface == BlueZ.adapterInterface, let powered = changed.bool("Powered") {
                if powered { s.switchedOff.remove(path) } else if s.objects[path]?[interface]?.bool("Powered") == true { s.switchedOff.insert(path) }
            }
            s.objects[path]![interface, default: BlueZ.Properties()].merge(changed, invalidated: invalidated)
            return (.propertiesChanged(path, interface: interface, changed: changed, invalidated: invalidated,
                                       arrival: signal.receivedAt), nil)
        default:
            return (nil, nil)
        }
    }

    private func ownerChanged(_ signal: DBusSignal) {
        guard signal.arguments.count == 3, case .string(let newOwner) = signal.arguments[2] else { return }
        let hadOwner = state.withLock { s -> Bool in
            let had = s.owner != nil
            s.owner = nil
            s.objects = [:]
            s.generation += 1
            // Everything the new bluetoothd says from now on waits for (and lands on) its snapshot.
            s.buffered = newOwner.isEmpty ? nil : []
            s.bufferOverflowed = false
            s.adapterSince = [:]
            s.returnedAt = newOwner.isEmpty ? nil : signal.receivedAt
            return had
        }
        if hadOwner {
            logger.info("BlueZ: bluetoothd left the bus; all links are lost until it returns")
            notify(.bluetoothdVanished)
        }
        if !newOwner.isEmpty {
            logger.info("BlueZ: bluetoothd is on the bus again (\(newOwner)); taking a new snapshot")
            Task { await self.snapshot() }
        }
    }

    /// Parses `a{sa{sv}}` (interfaces and their properties).
    private static func interfaces(_ value: DBusValue) -> [String: BlueZ.Properties] {
        guard let entries = value.dictionaryEntries else { return [:] }
        var result: [String: BlueZ.Properties] = [:]
        for entry in entries {
            guard case .string(let name) = entry.key else { continue }
            result[name] = BlueZ.Properties(dictionary: entry.value)
        }
        return result
    }
}
