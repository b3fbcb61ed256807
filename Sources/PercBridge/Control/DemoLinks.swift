// The demo's BLE side: the simulator's PERC modules, paired by the control API like real ones.
import MTKTangibles
import Synchronization

/// Virtual PERC modules, one per PERC of the scenario. Sensor events of a module reach the
/// service only when the module is paired and a registry definition names its address (as
/// with real links); `route` translates the simulator's ids to the registry's.
final class DemoLinks: ControlLinks {
    struct Module: Sendable, Hashable {
        var simID: TangibleID
        var address: String
        var name: String
        var profile: PercProfile
    }

    private struct State {
        var paired: Set<String> = []
        var routes: [TangibleID: TangibleID] = [:]
        /// Simulator ids whose sensor state must be sent again (newly routed).
        var needSync: Set<TangibleID> = []
        var inRange: [TangibleID: Bool] = [:]
    }

    let modules: [Module]
    private let state: Mutex<State>
    /// How long a virtual pairing takes (so that pairing is seen not to block anything).
    private let pairingDelay: Duration

    /// `paired`: addresses paired from the start (the scenario's defined PERCs).
    init(modules: [Module], paired: Set<String>, pairingDelay: Duration = .milliseconds(300)) {
        self.modules = modules
        self.pairingDelay = pairingDelay
        state = Mutex(State(paired: Set(paired.map { $0.uppercased() })))
    }

    /// One module per PERC of the simulated world.
    convenience init(world: SimWorld, paired: Set<String>) {
        let modules = world.definitions.compactMap { d -> Module? in
            guard d.kind == .perc, let a = d.address else { return nil }
            return Module(simID: d.id, address: a.uppercased(), name: d.name, profile: d.profile ?? .percV1)
        }
        self.init(modules: modules, paired: paired)
    }

    private func module(_ address: String) -> Module? { modules.first { $0.address.uppercased() == address.uppercased() } }

    func pair(address: String, name: String) async throws -> LinkPairing {
        let address = address.uppercased()
        guard let m = module(address) else {
            let known = modules.map { "\($0.address) (\($0.name))" }.joined(separator: ", ")
            throw ControlError(.PairingFailed, "no PERC module \(address) in range of the demo; its modules are: \(known.isEmpty ? "none" : known)")
        }
        guard state.withLock({ $0.inRange[m.simID] ?? true }) else {
            throw ControlError(.PairingFailed, "\(address) is out of range (its link is down in the scenario); wait until it is back and try again")
        }
        try await Task.sleep(for: pairingDelay)
        let already = state.withLock { s in
            defer { s.paired.insert(address) }
            return s.paired.contains(address)
        }
        return LinkPairing(address: address, name: m.name, profile: m.profile.rawValue, alreadyPaired: already)
    }

    func forget(address: String) async throws {
        _ = state.withLock { $0.paired.remove(address.uppercased()) }
    }

    func statuses() -> [LinkSummary] {
        state.withLock { s in
            modules.map { m in
                let paired = s.paired.contains(m.address.uppercased())
                let inRange = s.inRange[m.simID] ?? true
                let st = !inRange ? "out of range" : (paired ? (s.routes[m.simID] != nil ? "connected" : "paired") : "in range")
                return LinkSummary(address: m.address, name: m.name, state: st, profile: m.profile.rawValue, tangible: s.routes[m.simID])
            }
        }
    }

    func isPaired(_ address: String) -> Bool? { state.withLock { $0.paired.contains(address.uppercased()) } }

    func definitionsChanged(_ definitions: [TangibleDefinition]) {
        state.withLock { s in
            var routes: [TangibleID: TangibleID] = [:]
            for d in definitions where d.kind == .perc {
                guard let a = d.address?.uppercased(), s.paired.contains(a), let m = module(a) else { continue }
                routes[m.simID] = d.id
            }
            for (sim, id) in routes where s.routes[sim] != id { s.needSync.insert(sim) }
            s.routes = routes
        }
    }

    // MARK: For the demo loop

    /// Translates the simulator's sensor events; drops those of modules not paired or not defined.
    func route(_ events: [SensorEvent]) -> [SensorEvent] {
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
    func serviceID(ofSim sim: TangibleID) -> TangibleID? { state.withLock { $0.routes[sim] } }

    /// The simulator's id of a registry tangible (nil: not routed).
    func simID(of id: TangibleID) -> TangibleID? {
        state.withLock { s in s.routes.first { $0.value == id }?.key }
    }

    /// Simulator ids routed anew since the last call: their current sensor state is sent once.
    func takeSyncs() -> [TangibleID] {
        state.withLock { s in
            defer { s.needSync = [] }
            return s.needSync.sorted()
        }
    }

    /// The demo loop reports which modules are in range (the scenario's link losses).
    func observe(inRange: [TangibleID: Bool]) {
        state.withLock { $0.inRange = inRange }
    }
}
