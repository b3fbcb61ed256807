// One registered PERC's BLE link: connect, subscribe, decode, report, reconnect with backoff.
import Foundation
import Logging
import MTKTangibles
import Synchronization
import PercSystem

/// Keeps one PERC connected for as long as `run()` runs, and turns its notifications into
/// `SensorEvent`s (kind `.link` 1/0 when it comes into range / goes out of range).
///
/// The loop waits on mirror changes, never polls: for bluetoothd, for an adapter, for the
/// device (discovering only while it is unknown, and never while connecting), then
/// connects, waits for ServicesResolved, finds the profile's characteristics by UUID,
/// subscribes through AcquireNotify (falling back to StartNotify when the device or BlueZ
/// refuses), and waits for the link to go. Failed connects back off exponentially up to
/// `maxBackoff`; a new snapshot (bluetoothd returned) or a new adapter cuts the wait short.
public final class PercLink: Sendable {
    public struct Configuration: Sendable {
        public var address: String
        public var tangible: TangibleID
        /// nil: detect from the services found.
        public var profile: PercProfile? = nil
        public var lightWhiteValue = 1
        public var preferAcquireNotify = true
        public var initialBackoff: Duration = .milliseconds(250)
        public var maxBackoff: Duration = .seconds(30)
        public var connectTimeout: Duration = .seconds(20)
        /// A Connect unanswered this long reports the PERC unreachable (it keeps waiting).
        public var slowConnect: Duration = .seconds(5)
        /// How long Connected=true may follow a successful Connect answer (it follows within
        /// milliseconds when the link is there: 3 ms on the real-BlueZ harness).
        var connectedGrace: Duration = .milliseconds(300)
        /// How long the services of a link bluetoothd connected without signalling it (its
        /// Connected=true found only by reading it back) may take to resolve before the link
        /// counts as BlueZ's stale state (resolved from its cache within 0.1 s on the harness).
        var unsignalledResolveGrace: Duration = .seconds(1)
        /// How long a paired PERC whose link was up when bluetoothd vanished (a SIGKILL, a
        /// crash) is left alone after its adapter appeared again, unless it shows
        /// Connected=true first. bluetoothd
        /// publishes its devices first and reads the kernel's links (MGMT Get Connections)
        /// behind its queue of start-up commands, 0.1 s later on the real-BlueZ harness; a
        /// Connect in between, to a PERC whose link outlived a killed bluetoothd, left
        /// bluetoothd believing in a link it did not track ("Device … is already connected",
        /// then "No matching connection for device"): 2 s more for the stale-state Disconnect.
        var connectionsReadGrace: Duration = .milliseconds(500)
        /// How long a connected PERC may take to resolve its services before we start over.
        var resolveTimeout: Duration = .seconds(15)
        /// How long the GATT objects may follow ServicesResolved (first connection) before the
        /// device counts as not a PERC.
        var servicesTimeout: Duration = .seconds(5)

        /// The timings keep their defaults; set them on the value.
        public init(address: String, tangible: TangibleID, profile: PercProfile? = nil, preferAcquireNotify: Bool = true) {
            self.address = address
            self.tangible = tangible
            self.profile = profile
            self.preferAcquireNotify = preferAcquireNotify
        }
    }

    public typealias EventHandler = @Sendable (SensorEvent) -> Void
    public typealias StatusHandler = @Sendable (PercLinkStatus) -> Void

    public let configuration: Configuration
    private let mirror: BlueZMirror
    private let discovery: BlueZDiscovery
    private let calls: BlueZCalls
    private let logger: Logger
    private let onEvent: EventHandler
    private let onStatus: StatusHandler

    private struct State {
        var decoder: PercDecoder?
        var socketClosed = false
        var writePath: DBusObjectPath?
        var writeWithResponse = false
        var profile: PercProfile?
        var path: NotifyPath?
        var linkUps = 0
        var earlierStats = NotificationStats()
    }
    private let state = Mutex(State())

    public init(configuration: Configuration, mirror: BlueZMirror, discovery: BlueZDiscovery, logger: Logger,
         onEvent: @escaping EventHandler, onStatus: @escaping StatusHandler = { _ in }) {
        self.configuration = configuration
        self.mirror = mirror
        self.discovery = discovery
        self.calls = BlueZCalls(connection: mirror.connection)
        var logger = logger
        logger[metadataKey: "perc"] = "\(configuration.address)"
        self.logger = logger
        self.onEvent = onEvent
        self.onStatus = onStatus
    }

    /// Counters over every link-up so far.
    public var stats: NotificationStats {
        state.withLock { s in
            var total = s.earlierStats
            if let d = s.decoder { total.add(d.stats) }
            return total
        }
    }

    public var notifyPath: NotifyPath? { state.withLock { $0.path } }
    public var linkUps: Int { state.withLock { $0.linkUps } }
    var hasDeviceTime: Bool { state.withLock { $0.decoder?.hasDeviceTime ?? ($0.profile == .percV1) } }

    private func report(_ status: PercLinkStatus) {
        logger.info("PERC \(configuration.address): \(status)")
        onStatus(status)
    }

    // MARK: the loop

    public func run() async {
        var machine = LinkMachine(timing: .init(initialBackoff: configuration.initialBackoff, maxBackoff: configuration.maxBackoff,
                                                connectionsReadGrace: configuration.connectionsReadGrace))
        var held = Held()
        var step = machine.handle(.looked(world()))
        while true {
            if let status = step.report { report(status) }
            guard !Task.isCancelled, let event = await perform(step.action, &machine, &held) else { break }
            // Stopped meanwhile: only a link that went (`lost: stopped`) is still reported.
            if Task.isCancelled, case .lost = event {} else if Task.isCancelled { break }
            let (phase, impossible) = (machine.phase, machine.impossibleEvents)
            step = machine.handle(event)
            if machine.impossibleEvents > impossible {
                logger.error("PERC \(configuration.address): link bug: \(event) in phase \(phase); looking again")
            }
        }
    }

    /// What the executor holds between the machine's steps: the layout found, the subscription.
    private struct Held {
        var layout: (path: DBusObjectPath, layout: PercGattLayout)?
        var subscription: Subscription?
    }

    /// What the mirror shows of this PERC now, for the machine.
    private func world() -> LinkMachine.World {
        let device = mirror.device(address: configuration.address).map { d in
            LinkMachine.World.Device(path: d.path, connected: d.connected, paired: d.paired, adapter: d.adapter,
                                     adapterPowered: d.adapter.flatMap { mirror.adapter(path: $0)?.powered },
                                     adapterSwitchedOff: d.adapter.map { mirror.switchedOff($0) } ?? false,
                                     adapterAge: d.adapter.flatMap { mirror.adapterAge($0) })
        }
        return .init(bluetoothdPresent: mirror.bluetoothdPresent, hasAdapter: !mirror.adapters.isEmpty, device: device)
    }

    /// Carries out one of the machine's actions; returns what came of it (nil: stop).
    private func perform(_ action: LinkMachine.Action, _ machine: inout LinkMachine, _ held: inout Held) async -> LinkMachine.Event? {
        let forever: Duration = .seconds(86_400 * 365)
        let address = configuration.address
        switch action {
        case .look:
            break
        case .waitForBluetoothd:
            _ = await mirror.wait(timeout: forever) { $0.bluetoothdPresent ? true : nil }
        case .waitForAdapter:
            _ = await mirror.wait(timeout: forever) { !$0.adapters.isEmpty || !$0.bluetoothdPresent ? true : nil }
        case .search:
            await discovery.want()
            _ = await mirror.wait(timeout: .seconds(10)) { m in
                m.device(address: address) != nil || !m.bluetoothdPresent ? true : nil
            }
            await discovery.unwant()
        case .waitForKernelLinks(let path, let remaining):
            _ = await mirror.wait(timeout: remaining) { m -> Bool? in
                m.device(path: path)?.connected == true || m.device(path: path) == nil || !m.bluetoothdPresent ? true : nil
            }
        case .connect(let path, let adapter, let powerOn):
            let answer = await connect(path, adapter: adapter, powerOn: powerOn, &machine)
            guard !Task.isCancelled else { return nil }
            logger.debug("PERC \(address): Connect answered \(answer)")
            return .connectAnswered(answer, adapterPowered: adapter.flatMap { mirror.adapter(path: $0)?.powered },
                                    adapterSwitchedOff: adapter.map { mirror.switchedOff($0) } ?? false)
        case .awaitConnection(let path, _):
            // bluetoothd (the kernel's auto-connect list of paired devices) is already
            // connecting it: wait for that event, not a timer; after connectTimeout the machine
            // clears the stale attempt with Disconnect (what users of other BlueZ clients stuck
            // on InProgress needed).
            return .pendingEnded(await waitForConnected(path, timeout: configuration.connectTimeout))
        case .disconnectThenLook(let path, let reason):
            switch reason {
            case .pendingConnectNeverCame(let why):
                logger.info("PERC \(address): no connection \(configuration.connectTimeout) after \(why); clearing BlueZ's pending connect")
            case .servicesNeverResolved:
                logger.notice("PERC \(address): connected but services not resolved after \(configuration.resolveTimeout); disconnecting to start over")
            }
            try? await calls.disconnect(path)
        case .waitForPowered(let adapter, let forever):
            let epoch = mirror.epoch
            _ = await mirror.wait(timeout: forever ? .seconds(86_400 * 365) : configuration.maxBackoff) { m -> Bool? in
                guard m.bluetoothdPresent, m.epoch == epoch, let a = m.adapter(path: adapter) else { return true }
                return a.powered ? true : nil
            }
        case .pause(let duration, let device):
            await pause(duration, device: device)
        case .confirmConnected(let path):
            return await confirmConnected(path)
        case .clearStaleLink(let path):
            // bluetoothd 5.66 can lose track of a link (its log: "No matching connection for
            // device" on the disconnect, "Device … is already connected" on the next one).
            // Seen on the real-BlueZ harness after a fast link drop.
            logger.info("PERC \(address): Connected still false \(configuration.connectedGrace) after Connect; disconnecting to clear BlueZ's stale link state")
            return .staleLinkCleared((try? await calls.disconnect(path)) != nil)
        case .awaitResolved(let path):
            // Connected (maybe by bluetoothd itself, after a restart): services resolve on their
            // own once the GATT client is ready. Wait for ServicesResolved or the link going.
            let resolved = await waitForResolved(path, timeout: configuration.resolveTimeout)
            return .resolved(resolved, connected: mirror.device(path: path)?.connected == true)
        case .findLayout(let path):
            let layout = await Self.awaitLayout(in: mirror, device: path, profile: configuration.profile,
                                                timeout: configuration.servicesTimeout)
            held.layout = layout.map { (path, $0) }
            return .layoutFound(layout != nil, services: layout == nil ? mirror.services(of: path).map(\.uuid) : [])
        case .subscribe:
            guard let (path, layout) = held.layout else { return .subscribeFailed("no layout") }
            do {
                let subscription = try await subscribe(device: path, layout: layout)
                held.subscription = subscription
                state.withLock { $0.linkUps += 1 }
                return .subscribed(profile: layout.profile.rawValue, path: subscription.path)
            } catch {
                if Task.isCancelled { return nil }
                return .subscribeFailed("\(error)")
            }
        case .stream:
            guard let (path, layout) = held.layout, let subscription = held.subscription else {
                return .lost(reason: "no subscription", bluetoothdPresent: mirror.bluetoothdPresent)
            }
            (held.layout, held.subscription) = (nil, nil)
            return await stream(path, layout, subscription)
        }
        return Task.isCancelled ? nil : .looked(world())
    }

    /// Connect (switching the adapter on first if asked), given up when overtaken; reports a
    /// Connect that BlueZ has not answered after slowConnect (the PERC is not advertising).
    private func connect(_ path: DBusObjectPath, adapter: DBusObjectPath?, powerOn: Bool,
                         _ machine: inout LinkMachine) async -> ConnectAnswer {
        let address = configuration.address
        do {
            if powerOn, let adapter {
                logger.info("PERC \(address): adapter \(adapter) is off; powering it on")
                try await calls.setPowered(adapter, true)
            }
            // An adapter switched off while we watched stays off: what Connect would answer, no call.
            if let adapter, mirror.switchedOff(adapter) { return .notReady }
            let slow = PercLinkStatus.awaitingConnection("nothing yet, \(Int(configuration.slowConnect.seconds)) s after Connect")
            let reportedSlow = Atomic<Bool>(false)
            let overtaken = try await connectUnlessOvertaken(path) { [self] in
                reportedSlow.store(true, ordering: .relaxed)
                report(slow)
            }
            if reportedSlow.load(ordering: .relaxed) { machine.reported(slow) }
            if let overtaken {
                logger.info("PERC \(address): stopped waiting for Connect: \(overtaken)")
                return .overtaken
            }
            return .connected
        } catch {
            return ConnectAnswer(error)
        }
    }

    /// The link is up: say so, then stream until it goes; returns how it went.
    private func stream(_ path: DBusObjectPath, _ layout: PercGattLayout, _ subscription: Subscription) async -> LinkMachine.Event {
        onEvent(SensorEvent(tangible: configuration.tangible, kind: .link, value: 1, arrival: MonotonicClock.now()))
        await afterSubscribe(layout: layout, device: path)
        var reason = await mirror.wait(timeout: .seconds(86_400 * 365)) { [self] m in lossReason(m, device: path) } ?? "stopped"
        if state.withLock({ $0.socketClosed }) {
            // BlueZ hangs the socket up just before it says why; give it a moment to say it.
            _ = await mirror.wait(timeout: .milliseconds(300)) { m in m.device(path: path)?.connected == true ? nil : true }
            reason = lossReason(mirror, device: path) ?? reason
        }
        await unsubscribe(subscription)
        let bluetoothdPresent = mirror.bluetoothdPresent
        onEvent(SensorEvent(tangible: configuration.tangible, kind: .link, value: 0, arrival: MonotonicClock.now()))
        return .lost(reason: reason, bluetoothdPresent: bluetoothdPresent)
    }

    /// After a Connect answered ok: whether `Connected=true` followed (nil: not in time).
    /// bluetoothd 5.66 may answer Connect before its Connected=true reaches us (on the
    /// real-BlueZ harness the PERC saw the link 3 ms after our Connect had returned, and
    /// reading Connected=false then as "the link went" made every first connect fail). So the
    /// property is waited for, briefly: it follows within milliseconds when the link is there;
    /// when it is not (the link went again at once, the adapter was switched off) the loop
    /// asks BlueZ again instead of waiting out connectTimeout.
    private func confirmConnected(_ path: DBusObjectPath) async -> LinkMachine.Event {
        var up = await waitForConnected(path, timeout: configuration.connectedGrace)
        if up == nil, mirror.bluetoothdPresent, await mirror.reread(device: path)?.connected == true {
            // bluetoothd 5.66 connected it without a PropertiesChanged (the link's ATT channel
            // came up before bluetoothd handled its connection event: "Device … is already
            // connected" in its log; on the real-BlueZ harness in 2 of 3 SIGKILL restarts of
            // one run). Such a link works: its services resolve, and that is signalled.
            // Without them soon it is the stale state after all, cleared by a Disconnect.
            logger.info("PERC \(configuration.address): Connected=true when read back \(configuration.connectedGrace) after Connect, not signalled by bluetoothd; waiting up to \(configuration.unsignalledResolveGrace) for its services")
            up = await waitForResolved(path, timeout: configuration.unsignalledResolveGrace) == true ? true : nil
        }
        return .connectedSeen(up, stillThere: mirror.bluetoothdPresent && mirror.device(path: path) != nil)
    }

    /// Waits for the device's ServicesResolved=true (true), its link or bluetoothd going
    /// (false), or `timeout` (nil).
    private func waitForResolved(_ path: DBusObjectPath, timeout: Duration) async -> Bool? {
        await mirror.wait(timeout: timeout) { m -> Bool? in
            guard m.bluetoothdPresent, let d = m.device(path: path), d.connected else { return false }
            return d.servicesResolved ? true : nil
        }
    }

    /// Waits for the device's Connected=true: true when it comes, false as soon as it cannot
    /// (bluetoothd left or returned, the device object went, its adapter is off), nil after
    /// `timeout`.
    private func waitForConnected(_ path: DBusObjectPath, timeout: Duration) async -> Bool? {
        let epoch = mirror.epoch
        return await mirror.wait(timeout: timeout) { m -> Bool? in
            guard m.bluetoothdPresent, m.epoch == epoch, let d = m.device(path: path) else { return false }
            if let adapter = d.adapter, m.adapter(path: adapter)?.powered == false { return false }
            return d.connected ? true : nil
        }
    }

    /// `Device1.Connect`, given up (the call cancelled) when what it was asked in changes
    /// before BlueZ answers: bluetoothd restarted (a new snapshot), the adapter was switched
    /// off, or the device object went. bluetoothd 5.66 keeps such a call pending for up to
    /// connectTimeout (seen on the real-BlueZ harness: a Connect asked just before `btmgmt
    /// power off` answered 20 s later). Returns why it was given up, nil when BlueZ answered.
    private func connectUnlessOvertaken(_ path: DBusObjectPath, onSlow: @escaping @Sendable () -> Void) async throws -> String? {
        let epoch = mirror.epoch
        let adapter = mirror.device(path: path)?.adapter
        return try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask { [configuration] in
                try await Task.sleep(for: configuration.slowConnect)
                onSlow()
                try await Task.sleep(for: .seconds(86_400))
                return nil
            }
            group.addTask { [calls, configuration] in
                try await calls.connect(path, timeout: configuration.connectTimeout)
                return nil
            }
            group.addTask { [mirror, configuration] in
                let why = await mirror.wait(timeout: configuration.connectTimeout + .seconds(1)) { m -> String? in
                    if !m.bluetoothdPresent { return "bluetoothd left the bus" }
                    if m.epoch != epoch { return "BlueZ's objects were reloaded" }
                    if let adapter, m.switchedOff(adapter) { return "adapter \(adapter) was switched off" }
                    if m.device(path: path) == nil { return "BlueZ removed the device" }
                    return nil
                }
                // Timed out: let the call's own answer (or its timeout) decide.
                if why == nil { try await Task.sleep(for: .seconds(86_400)) }
                return why
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// Waits `duration`, or less when something worth retrying for happens: a new snapshot or
    /// adapter (epoch), the device connecting by itself, or it showing up again in an
    /// advertisement (RSSI appears or changes) — a PERC back in range connects at once.
    private func pause(_ duration: Duration, device: DBusObjectPath? = nil) async {
        let epoch = mirror.epoch
        let rssi = device.flatMap { mirror.device(path: $0)?.properties.int("RSSI") }
        _ = await mirror.wait(timeout: duration) { m -> Bool? in
            if m.epoch != epoch { return true }
            guard let device else { return nil }
            guard let d = m.device(path: device) else { return true }
            if d.connected { return true }
            let now = d.properties.int("RSSI")
            return now != nil && now != rssi ? true : nil
        }
    }

    private func lossReason(_ m: BlueZMirror, device: DBusObjectPath) -> String? {
        if Task.isCancelled { return "stopped" }
        if !m.bluetoothdPresent { return "bluetoothd left the bus" }
        guard let d = m.device(path: device) else {
            let adapter = device.parentAdapter
            if m.adapter(path: adapter) == nil { return "adapter \(adapter) was removed" }
            return "BlueZ removed the device"
        }
        if !d.connected { return "disconnected" }
        if !d.servicesResolved { return "services no longer resolved" }
        if state.withLock({ $0.socketClosed }) { return "the notification socket was closed" }
        return nil
    }

    /// The layout once its GATT objects are there. On a first connection (nothing cached)
    /// bluetoothd 5.66 sets ServicesResolved before it exports them (seen on the real-BlueZ
    /// harness: "none of the PERC services (found: none)"): they get up to `timeout` to
    /// appear (events) while the device stays connected. nil: not a PERC (or the link went).
    static func awaitLayout(in mirror: BlueZMirror, device: DBusObjectPath, profile: PercProfile?,
                            timeout: Duration) async -> PercGattLayout? {
        if let now = layout(in: mirror, device: device, profile: profile) { return now }
        _ = await mirror.wait(timeout: timeout) { m -> Bool? in
            guard m.bluetoothdPresent, m.device(path: device)?.connected == true else { return false }
            return layout(in: m, device: device, profile: profile) != nil ? true : nil
        }
        return layout(in: mirror, device: device, profile: profile)
    }

    static func layout(in mirror: BlueZMirror, device: DBusObjectPath, profile: PercProfile?) -> PercGattLayout? {
        let candidates = profile.map { [PercGattLayout.of($0)] } ?? PercGattLayout.all
        return candidates.first { layout in
            mirror.characteristic(device: device, service: layout.service, uuid: layout.notify) != nil
        }
    }

    // MARK: notifications

    private enum Subscription {
        case socket(NotifySocket.Token, characteristic: DBusObjectPath)
        case signals(listener: Int, characteristic: DBusObjectPath)

        var path: NotifyPath {
            switch self {
            case .socket: .acquireNotify
            case .signals: .startNotify
            }
        }
    }

    private func subscribe(device: DBusObjectPath, layout: PercGattLayout) async throws -> Subscription {
        guard let notify = mirror.characteristic(device: device, service: layout.service, uuid: layout.notify) else {
            throw DBusError(name: BlueZ.ErrorName.doesNotExist, message: "notify characteristic \(layout.notify) is gone")
        }
        let write = mirror.characteristic(device: device, service: layout.service, uuid: layout.write)
        let tangible = configuration.tangible
        state.withLock { s in
            if let old = s.decoder { s.earlierStats.add(old.stats) }
            s.decoder = PercDecoder(profile: layout.profile, tangible: tangible, lightWhiteValue: configuration.lightWhiteValue)
            s.socketClosed = false
            s.profile = layout.profile
            s.writePath = write?.path
            s.writeWithResponse = write.map { !$0.flags.contains("write-without-response") } ?? false
        }
        // (With the process's socket reader stopped, StartNotify at once: `NotifySocket`.)
        if configuration.preferAcquireNotify, NotifySocket.shared.isRunning {
            do {
                let (fd, mtu) = try await calls.acquireNotify(notify.path)
                // (A socket the reader cannot watch is closed, releasing BlueZ's acquisition.)
                let token = try NotifySocket.shared.add(fd: fd, mtu: mtu, onData: { [weak self] bytes, arrival in
                    self?.deliver(bytes, arrival: arrival)
                }, onClosed: { [weak self] in
                    guard let self else { return }
                    self.state.withLock { $0.socketClosed = true }
                    self.mirror.notifySocketClosed(notify.path)
                })
                state.withLock { $0.path = .acquireNotify }
                logger.info("PERC \(configuration.address): AcquireNotify on \(notify.path) (MTU \(mtu))")
                return .socket(token, characteristic: notify.path)
            } catch {
                logger.info("PERC \(configuration.address): AcquireNotify refused (\(error)); using StartNotify")
            }
        }
        let charPath = notify.path
        // Notifications come through the mirror's per-characteristic sink, on the D-Bus loop
        // thread, without passing every link's wait predicates.
        let listener = mirror.onValue(of: charPath) { [weak self] bytes, arrival in
            self?.deliver(bytes, arrival: arrival)
        }
        do {
            try await calls.startNotify(charPath)
        } catch let error as DBusError where error.name == BlueZ.ErrorName.inProgress {
            // BlueZ keeps our session across reconnects: already subscribed.
        } catch {
            mirror.removeValueSink(listener)
            throw error
        }
        state.withLock { $0.path = .startNotify }
        return .signals(listener: listener, characteristic: charPath)
    }

    private func unsubscribe(_ subscription: Subscription) async {
        switch subscription {
        case .socket(let token, _):
            // What the PERC sent before the link went is delivered first (before link 0).
            await NotifySocket.shared.close(token)
        case .signals(let listener, let characteristic):
            mirror.removeValueSink(listener)
            if mirror.device(path: characteristic.parentDevice)?.connected == true {
                try? await calls.stopNotify(characteristic)
            }
        }
    }

    /// Profile-specific steps once notifications flow: MTK subscriptions, v1 battery level.
    private func afterSubscribe(layout: PercGattLayout, device: DBusObjectPath) async {
        switch layout.profile {
        case .mtkSerial, .nordicUART:
            for group in [MTKFrame.fieldGroup, MTKFrame.lightGroup] {
                do { try await write(MTKFrame.subscribe(group: group).bytes) } catch {
                    logger.info("PERC \(configuration.address): subscribing group \(group) failed: \(error)")
                }
            }
        case .percV1:
            // The current field and light state at once, not at the next heartbeat (up to a
            // second away): the Sensor Event characteristic is readable (PROTOCOLS.md).
            // BlueZ announces the read as a Value change too; the decoder drops that echo.
            if let sensor = mirror.characteristic(device: device, service: layout.service, uuid: layout.notify),
               sensor.flags.contains("read") {
                do { deliverRead(try await calls.readValue(sensor.path), arrival: MonotonicClock.now()) } catch {
                    logger.info("PERC \(configuration.address): reading the current state failed: \(error)")
                }
            }
            if let battery = mirror.characteristic(device: device, service: PercGattLayout.batteryService,
                                                   uuid: PercGattLayout.batteryLevel),
               let level = try? await calls.readValue(battery.path).first {
                onEvent(SensorEvent(tangible: configuration.tangible, kind: .battery, value: Int(level),
                                    arrival: MonotonicClock.now()))
            }
        }
    }

    private func deliverRead(_ bytes: [UInt8], arrival: Double) {
        let events = state.withLock { s -> [SensorEvent] in
            guard case .percV1(var d)? = s.decoder else { return [] }
            let events = d.decodeRead(bytes, arrival: arrival)
            s.decoder = .percV1(d)
            return events
        }
        if !events.isEmpty { logger.info("PERC \(configuration.address): current state read at once (\(events.count) events)") }
        for event in events { onEvent(event) }
    }

    private func deliver(_ bytes: [UInt8], arrival: Double) {
        let (events, rejection) = state.withLock { s -> ([SensorEvent], String?) in
            guard var decoder = s.decoder else { return ([], nil) }
            let before = decoder.stats.rejected
            let events = decoder.decode(bytes, arrival: arrival)
            s.decoder = decoder
            // Log the first rejected value of each link-up; the rest are only counted.
            var rejection: String?
            if before == 0, decoder.stats.rejected == 1, case .percV1(let d) = decoder { rejection = d.lastRejection?.description }
            return (events, rejection)
        }
        if let rejection { logger.info("PERC \(configuration.address): rejected a notification: \(rejection) (further ones are counted)") }
        for event in events { onEvent(event) }
    }

    // MARK: actuators

    /// Sends an actuator command through whichever profile the PERC speaks.
    public func actuate(_ actuation: PercActuation) async throws {
        let profile = state.withLock { $0.profile }
        switch profile {
        case .percV1?:
            guard let bytes = actuation.percV1Bytes else {
                throw DBusError(name: BlueZ.ErrorName.notSupported, message: "PERC GATT v1 has no \(actuation) command")
            }
            try await write(bytes)
        case .mtkSerial?, .nordicUART?:
            try await write(actuation.mtkFrame.bytes)
        case nil:
            throw DBusError(name: BlueZ.ErrorName.notConnected, message: "PERC \(configuration.address) is not connected")
        }
    }

    private func write(_ bytes: [UInt8]) async throws {
        let (path, withResponse) = state.withLock { ($0.writePath, $0.writeWithResponse) }
        guard let path else {
            throw DBusError(name: BlueZ.ErrorName.notSupported, message: "PERC \(configuration.address) has no writable characteristic")
        }
        try await calls.writeValue(path, bytes, withResponse: withResponse)
    }
}
