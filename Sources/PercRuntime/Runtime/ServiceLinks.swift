// The service's BlueZ side: one PercLink per registered PERC, its events fed into the frame clock.
import Foundation
import Logging
import MTKTangibles
import Synchronization
import PercSystem
import PercBlueZ

/// Opens BlueZ on the configured bus and keeps one `PercLink` running per PERC of the
/// registry (those with a Bluetooth address), following registry changes. Sensor events
/// (field, light, battery, heartbeat, link) go into the frame clock; app actuation requests
/// come back out to the right link. Without a reachable bus the service keeps running for
/// touches and PUCs, says what is wrong, and retries.
///
/// Control API (for the D-Bus control interface and the CLI): `pair(address:name:)`,
/// `forget(id:)`, `statuses()`, `actuate(_:_:)`, and `updateRegistry(_:)` for every other
/// registry change (define, calibrate), so that all of them reach the engine, the apps and
/// the links the same way.
public final class ServiceLinks: Sendable {
    let config: ServiceConfig.Bluetooth
    let bus: DBusBus
    public let store: RegistryStore
    let logger: Logger

    struct State {
        var definitions: [TangibleDefinition] = []
        var session: BlueZSession?
        var clock: FrameClock?
        var metrics: ServiceMetrics?
        var entries: [TangibleID: ServiceLinkEntry] = [:]
        var statuses: [TangibleID: PercLinkStatus] = [:]
        /// Why the bus could not be reached (nil once it was).
        var busProblem: String?
        var agent: BlueZAgent?
        var observer: RegistryObserver?
        var warnedNoAddress: Set<TangibleID> = []
        var rssiObserver: (@Sendable (RSSISample) -> Void)?
    }
    let state = Mutex(State())
    /// Serialises the registry's read-modify-write within this process.
    let registryLock = Mutex(())

    public init(config: ServiceConfig.Bluetooth, store: RegistryStore, definitions: [TangibleDefinition], logger: Logger) {
        self.config = config
        self.bus = (try? DBusBus(parsing: config.bus)) ?? .system
        self.store = store
        self.logger = logger
        state.withLock { $0.definitions = definitions }
    }

    /// Gets the new registry after every change made through `updateRegistry` or
    /// `registryChanged`, and a function to call once the engine has its definitions: only
    /// then do the links follow, so a new PERC's first link event never reaches the engine
    /// before the PERC does.
    public typealias RegistryObserver = @Sendable (TangibleRegistry, _ thenFollow: @escaping @Sendable () -> Void) -> Void

    public func observeRegistry(_ observer: @escaping RegistryObserver) {
        state.withLock { $0.observer = observer }
    }

    // MARK: running

    /// Opens BlueZ (retrying while the bus is unreachable), runs the links until cancelled,
    /// then stops them and closes the connection.
    public func run(clock: FrameClock, metrics: ServiceMetrics) async {
        state.withLock { $0.clock = clock; $0.metrics = metrics }
        metrics.linksRegistered.record(state.withLock { s in s.definitions.filter(Self.wantsLink).count })
        guard config.enabled else {
            logger.notice("Bluetooth is off ([bluetooth] enabled = false): no PERC links; touches and PUCs work")
            return
        }
        guard let session = await openSession() else { return }
        state.withLock { $0.session = session; $0.busProblem = nil }
        watchRSSI(session)
        describe(session)
        follow(nil)
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        let tasks = state.withLock { s -> [Task<Void, Never>] in
            defer { s.entries = [:]; s.session = nil }
            return s.entries.values.compactMap(\.task)
        }
        for t in tasks { t.cancel() }
        for t in tasks { await t.value }
        session.close()
    }

    private func openSession() async -> BlueZSession? {
        var delay: Duration = .seconds(1)
        var failures = 0
        while !Task.isCancelled {
            do {
                let session = try await BlueZSession.open(bus: bus, adapter: config.adapter, logger: linkLogger(logger))
                if failures > 0 { logger.notice("reached the \(bus) for BlueZ after \(failures) failed attempts") }
                return session
            } catch {
                failures += 1
                state.withLock { $0.busProblem = "\(error)" }
                if failures == 1 {
                    logger.error("""
                        cannot reach the \(bus) for BlueZ (\(error)). PERC links are off until it is reachable; \
                        touches and PUCs keep working. Start D-Bus and bluetoothd (systemctl start bluetooth) or set \
                        [bluetooth] bus in the config (docs/configuration.md); retrying every few seconds
                        """, metadata: ["bus": "\(config.bus)"])
                } else {
                    logger.debug("still cannot reach the \(bus): \(error)")
                }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(15))
            }
        }
        return nil
    }

    /// One line about what BlueZ looks like at start, and what to do when something is missing.
    private func describe(_ session: BlueZSession) {
        let mirror = session.mirror
        let percs = state.withLock { $0.definitions.filter(Self.wantsLink).count }
        guard mirror.bluetoothdPresent else {
            logger.warning("""
                bluetoothd (org.bluez) is not on the \(bus): \(percs) PERC link(s) wait for it. Start it \
                (systemctl start bluetooth); PERCs connect as soon as it appears
                """, metadata: ["bus": "\(config.bus)"])
            return
        }
        let names = mirror.adapters.map { $0.path.rawValue.split(separator: "/").last.map(String.init) ?? $0.path.rawValue }
        if names.isEmpty {
            logger.warning("BlueZ has no Bluetooth adapter: plug one in or unblock it (rfkill unblock bluetooth); PERC links wait for one")
        } else if config.adapter != "any", !names.contains(config.adapter) {
            logger.warning("""
                adapter \(config.adapter) ([bluetooth] adapter) is not there; BlueZ has \(names.joined(separator: ", ")). \
                Links use whichever adapter knows the PERC; set [bluetooth] adapter (or "any") to silence this
                """)
        }
        logger.notice("BlueZ on the \(bus): adapters \(names.isEmpty ? "none" : names.joined(separator: ", ")), \(percs) PERC link(s) to keep",
                      metadata: ["bus": "\(config.bus)", "adapters": "\(names.joined(separator: ","))"])
    }

    static func wantsLink(_ d: TangibleDefinition) -> Bool { d.kind == .perc && d.address != nil }

    // MARK: following the registry

    /// The registry changed (SIGHUP reload, pair, forget, define…): the service's observer
    /// updates the engine and the apps, then the links follow.
    public func registryChanged(_ registry: TangibleRegistry) {
        guard let observer = state.withLock({ $0.observer }) else { return follow(registry.tangibles) }
        observer(registry) { [self] in follow(registry.tangibles) }
    }

    /// Starts links for new PERCs, stops those of removed ones, restarts those whose
    /// address, profile or light polarity changed (`nil`: the definitions known now).
    func follow(_ newDefinitions: [TangibleDefinition]?) {
        var noAddress: [TangibleDefinition] = []
        var invalid: [TangibleDefinition] = []
        let (stopped, started, registered, connected) = state.withLock { s -> ([ServiceLinkEntry], [ServiceLinkEntry], Int, Int) in
            if let newDefinitions { s.definitions = newDefinitions }
            let definitions = s.definitions
            guard let session = s.session, let clock = s.clock, let metrics = s.metrics else {
                return ([], [], definitions.filter(Self.wantsLink).count, 0)
            }
            var wanted: [TangibleID: (TangibleDefinition, ServiceLinkEntry.Key)] = [:]
            for d in definitions where d.kind == .perc {
                guard let address = d.address else {
                    if s.warnedNoAddress.insert(d.id).inserted { noAddress.append(d) }
                    continue
                }
                guard BlueZ.isAddress(address.uppercased()) else { invalid.append(d); continue }
                wanted[d.id] = (d, .init(address: address.uppercased(), profile: d.profile, lightWhiteValue: d.lightWhiteValue))
            }
            var stopped: [ServiceLinkEntry] = []
            for (id, entry) in s.entries where wanted[id]?.1 != entry.key {
                stopped.append(entry)
                s.entries[id] = nil
                s.statuses[id] = nil
            }
            var started: [ServiceLinkEntry] = []
            for (id, (d, key)) in wanted.sorted(by: { $0.key < $1.key }) where s.entries[id] == nil {
                let entry = makeLink(d, key: key, session: session, clock: clock, metrics: metrics)
                s.entries[id] = entry
                started.append(entry)
            }
            let connected = s.statuses.values.filter(\.isConnected).count
            return (stopped, started, s.entries.count, connected)
        }
        for e in stopped { e.task?.cancel() }
        if let m = state.withLock({ $0.metrics }) {
            m.linksRegistered.record(registered)
            m.links.record(connected)
        }
        for d in noAddress {
            logger.notice("PERC \(d.name) (tangible \(d.id)) has no Bluetooth address in the registry: no link; pair it (percbridge pair ADDRESS)",
                          metadata: ["tangible": "\(d.name)", "tangible_id": "\(d.id)"])
        }
        for d in invalid {
            logger.error("PERC \(d.name) (tangible \(d.id)): \"\(d.address ?? "")\" is not a Bluetooth address (AA:BB:CC:DD:EE:FF): no link; fix it in the registry",
                         metadata: ["tangible": "\(d.name)", "tangible_id": "\(d.id)"])
        }
        for e in stopped {
            logger.notice("\(e.name): link stopped (the registry changed)",
                          metadata: ["tangible": "\(e.name)", "tangible_id": "\(e.tangible)", "address": "\(e.key.address)", "link": "stopped"])
        }
        for e in started {
            logger.info("\(e.name): link started for \(e.key.address)",
                        metadata: ["tangible": "\(e.name)", "tangible_id": "\(e.tangible)", "address": "\(e.key.address)"])
        }
    }

    private func makeLink(_ d: TangibleDefinition, key: ServiceLinkEntry.Key, session: BlueZSession,
                          clock: FrameClock, metrics: ServiceMetrics) -> ServiceLinkEntry {
        let entry = ServiceLinkEntry(tangible: d.id, name: d.name, key: key)
        var linkLog = linkLogger(logger)
        linkLog[metadataKey: "tangible"] = "\(d.name)"
        linkLog[metadataKey: "tangible_id"] = "\(d.id)"
        var configuration = PercLink.Configuration(address: key.address, tangible: d.id, profile: key.profile,
                                                   preferAcquireNotify: config.acquireNotify)
        configuration.lightWhiteValue = key.lightWhiteValue
        configuration.maxBackoff = .milliseconds(Int(config.maxBackoffS * 1000))
        let link = PercLink(configuration: configuration, mirror: session.mirror, discovery: session.discovery, logger: linkLog,
                            onEvent: { [weak entry] event in
                                clock.add(event)
                                if let lost = entry?.takeNewlyLost(), lost > 0 { metrics.lostNotifications.increment(by: lost) }
                            },
                            onStatus: { [weak self, weak entry] status in
                                guard let self, let entry else { return }
                                self.statusChanged(entry, status)
                            })
        entry.started(link, Task { await link.run() })
        return entry
    }

    /// PercLink logs every step at info; the service logs the state changes itself (with
    /// the tangible), so the link's own lines show only with --log-level debug.
    private func linkLogger(_ base: Logger) -> Logger {
        var l = base
        if l.logLevel > .debug { l.logLevel = max(l.logLevel, .notice) }
        return l
    }

    private func statusChanged(_ entry: ServiceLinkEntry, _ status: PercLinkStatus) {
        let current = state.withLock { s -> Bool in
            guard s.entries[entry.tangible] === entry else { return false }
            s.statuses[entry.tangible] = status
            // Under the lock: whoever sees the new status sees the gauge agree with it.
            s.metrics?.links.record(s.statuses.values.filter(\.isConnected).count)
            return true
        }
        guard current else { return }
        log(status, of: entry)
    }

    // MARK: status

    /// The link state of every registered PERC that has a Bluetooth address. Before BlueZ is
    /// reachable they all wait for bluetoothd.
    public func statuses() -> [TangibleID: PercLinkStatus] {
        state.withLock { s in
            var out: [TangibleID: PercLinkStatus] = [:]
            for d in s.definitions where Self.wantsLink(d) { out[d.id] = s.statuses[d.id] ?? .waitingForBluetoothd }
            return out
        }
    }

    /// The tangibles the links follow (the registry as last applied).
    public var definitions: [TangibleDefinition] { state.withLock { $0.definitions } }

    /// Counters of each running link (since it was started): notifications, lost, link-ups.
    public func counters() -> [TangibleID: LinkSummary.Counters] {
        let entries = state.withLock { Array($0.entries.values) }
        var out: [TangibleID: LinkSummary.Counters] = [:]
        for e in entries {
            guard let l = e.link else { continue }
            let stats = l.stats
            out[e.tangible] = .init(notifications: stats.notifications, lost: stats.lost, linkUps: l.linkUps)
        }
        return out
    }
}

extension PercLinkStatus {
    public var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }
}
