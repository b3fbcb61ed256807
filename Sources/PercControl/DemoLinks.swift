// The demo's BLE side: the simulator's PERC modules, paired through the control API like real ones.
import MTKTangibles
import MTKSimulator
import Synchronization
import PercRuntime

/// Virtual PERC modules, one per PERC of the scenario. A module counts as paired while the
/// registry has a PERC with its address (pairing adds one, forget removes it), and only then
/// do its sensor events reach the service, as with real links; `route` translates the
/// simulator's ids to the registry's.
public final class DemoLinks: ControlLinks {
    public struct Module: Sendable, Hashable {
        public var simID: TangibleID
        var address: String
        var name: String
        var profile: PercProfile
    }

    private struct State {
        var routes: [TangibleID: TangibleID] = [:]
        /// Simulator ids whose sensor state must be sent again (newly routed).
        var needSync: Set<TangibleID> = []
        var inRange: [TangibleID: Bool] = [:]
        var registry: (any ControlRegistry)?
    }

    public let modules: [Module]
    private let state = Mutex(State())
    /// How long a virtual pairing takes (so that pairing is seen not to block anything).
    private let pairingDelay: Duration

    init(modules: [Module], pairingDelay: Duration = .milliseconds(300)) {
        self.modules = modules
        self.pairingDelay = pairingDelay
    }

    /// One module per PERC of the simulated world.
    public convenience init(world: SimWorld) {
        self.init(modules: world.definitions.compactMap { d -> Module? in
            guard d.kind == .perc, let a = d.address else { return nil }
            return Module(simID: d.id, address: a.uppercased(), name: d.name, profile: d.profile ?? .percV1)
        })
    }

    /// Where pairing registers modules and forget removes them.
    public func use(_ registry: any ControlRegistry) { state.withLock { $0.registry = registry } }

    private func module(_ address: String) -> Module? { modules.first { $0.address == address.uppercased() } }

    private func registry() throws -> any ControlRegistry {
        guard let r = state.withLock({ $0.registry }) else { throw ControlError(.LinkFailed, "the demo's links have no registry yet; try again") }
        return r
    }

    public func pair(address: String, name: String) async throws -> LinkPairing {
        let address = address.uppercased()
        guard let m = module(address) else {
            let known = modules.map { "\($0.address) (\($0.name))" }.joined(separator: ", ")
            throw ControlError(.PairingFailed, "no PERC module \(address) in range of the demo; its modules are: \(known.isEmpty ? "none" : known)")
        }
        guard state.withLock({ $0.inRange[m.simID] ?? true }) else {
            throw ControlError(.PairingFailed, "\(address) is out of range (its link is down in the scenario); wait until it is back and try again")
        }
        try await Task.sleep(for: pairingDelay)
        let (d, already) = try registry().update { r -> (TangibleDefinition, Bool) in
            if let existing = r.tangibles.first(where: { $0.address?.uppercased() == address }) { return (existing, true) }
            let chosen = name.isEmpty ? m.name : name
            do { return (try r.add(.standardPerc(id: 0, name: chosen, address: address, profile: m.profile)), false) } catch let e as TangibleRegistry.LookupError {
                throw ControlError(.NameTaken, e.description)
            }
        }
        return LinkPairing(address: address, name: d.name, profile: m.profile.rawValue, tangible: d.id, alreadyPaired: already)
    }

    public func forget(id: TangibleID) async throws -> TangibleDefinition {
        try registry().update { r in
            guard r.definition(id) != nil else {
                throw ControlError(.UnknownTangible, "no tangible \(id) in the registry; `percbridge list` shows the known ones")
            }
            return try r.forget(String(id))
        }
    }

    public func statuses() -> [LinkSummary] {
        state.withLock { s in
            modules.map { m in
                let inRange = s.inRange[m.simID] ?? true
                let routed = s.routes[m.simID]
                let st = routed == nil ? (inRange ? "in range" : "out of range") : (inRange ? "connected" : "lost")
                return LinkSummary(address: m.address, name: m.name, state: st, profile: m.profile.rawValue, tangible: routed)
            }
        }
    }

    /// The registry changed: route each module to the PERC that names its address.
    public func definitionsChanged(_ definitions: [TangibleDefinition]) {
        state.withLock { s in
            var routes: [TangibleID: TangibleID] = [:]
            for d in definitions where d.kind == .perc {
                guard let a = d.address, let m = module(a) else { continue }
                routes[m.simID] = d.id
            }
            for (sim, id) in routes where s.routes[sim] != id { s.needSync.insert(sim) }
            s.routes = routes
        }
    }

    // MARK: For the demo loop

    /// Translates the simulator's sensor events; drops those of modules not paired.
    public func route(_ events: [SensorEvent]) -> [SensorEvent] {
        state.withLock { s in
            events.compactMap { e in
                guard let id = s.routes[e.tangible] else { return nil }
                var e = e
                e.tangible = id
                return e
            }
        }
    }

    /// The registry id the simulator's tangible is known by (nil: not routed).
    public func serviceID(ofSim sim: TangibleID) -> TangibleID? { state.withLock { $0.routes[sim] } }

    /// The simulator's id of a registry tangible (nil: not routed).
    public func simID(of id: TangibleID) -> TangibleID? {
        state.withLock { s in s.routes.first { $0.value == id }?.key }
    }

    /// Simulator ids routed anew since the last call: their current sensor state is sent once.
    public func takeSyncs() -> [TangibleID] {
        state.withLock { s in
            defer { s.needSync = [] }
            return s.needSync.sorted()
        }
    }

    /// The demo loop reports which modules are in range (the scenario's link losses).
    public func observe(inRange: [TangibleID: Bool]) {
        state.withLock { $0.inRange = inRange }
    }
}
