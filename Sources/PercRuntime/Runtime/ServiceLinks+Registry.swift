// Pair and forget PERCs for the control API, and the one serialised way to change the registry.
import Foundation
import MTKTangibles
import PercSystem
import PercBlueZ
import PercInput

extension ServiceLinks {
    /// Loads the registry, lets `body` change it, saves it atomically (RegistryStore), then
    /// tells the service and the links. Serialised within this process, so pair, forget and
    /// define never overwrite each other. Throws what `body`, loading or saving throws.
    @discardableResult
    public func updateRegistry<T: Sendable>(_ body: (inout TangibleRegistry) throws -> T) throws -> T {
        let (value, saved) = try store.update(serialisedBy: registryLock, body)
        registryChanged(saved)
        return value
    }

    /// Pairs, trusts and connects a PERC through BlueZ (`PercPairing`, answering as a
    /// NoInputNoOutput agent), then registers it as a standard PERC with the profile found,
    /// under `name` (default: the name it advertises). A PERC already in the registry keeps
    /// its entry (its profile is refreshed): pairing again is how a lost bond is renewed.
    /// Throws `PercPairingError` (what BlueZ said, what to do), `ServiceLinksError`, or
    /// `TangibleRegistry.LookupError` (name taken).
    public func pair(address: String, name: String? = nil, timeout: Duration = .seconds(30),
              progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> TangibleDefinition {
        let session = try requireSession()
        let logger = logger
        let agent = state.withLock { s in
            if let a = s.agent { return a }
            let a = BlueZAgent(connection: session.connection, logger: logger)
            s.agent = a
            return a
        }
        let pairing = PercPairing(mirror: session.mirror, discovery: session.discovery, agent: agent, logger: logger)
        let result = try await pairing.pair(address: address, timeout: timeout, progress: progress)
        let definition = try updateRegistry { r -> TangibleDefinition in
            if var existing = r.tangibles.first(where: { $0.address?.uppercased() == result.address }) {
                if existing.profile != result.profile {
                    existing.profile = result.profile
                    try r.update(existing)
                }
                return existing
            }
            let advertised = result.name.isEmpty ? "PERC \(result.address)" : result.name
            // Modules of one make often share a name (on the real-BlueZ harness every PERC is
            // "BlueZ 5.66"): an advertised name already taken gets the address's last two
            // bytes, so pairing a second one needs no --name. A name the user gave stays as given.
            let unique = r.tangibles.contains { $0.name == advertised }
                ? "\(advertised.prefix(InputText.maxNameCharacters - 6)) \(result.address.suffix(5))" : advertised
            let chosen = name.flatMap { $0.isEmpty ? nil : $0 } ?? unique
            return try r.add(.standardPerc(id: 0, name: chosen, address: result.address, profile: result.profile))
        }
        logger.notice("paired PERC \(definition.name) (\(result.address), \(result.profile.rawValue)) as tangible \(definition.id)",
                      metadata: ["tangible": "\(definition.name)", "tangible_id": "\(definition.id)", "address": "\(result.address)"])
        return definition
    }

    /// Stops the tangible's link, removes it from the registry and, for a PERC, removes the
    /// device from BlueZ (its bond goes too). Returns what was removed.
    @discardableResult
    public func forget(id: TangibleID) async throws -> TangibleDefinition {
        let running = state.withLock { $0.entries[id]?.task }
        let removed = try updateRegistry { r -> TangibleDefinition in
            guard r.definition(id) != nil else { throw ServiceLinksError.unknownTangible(id) }
            return try r.forget(String(id))
        }
        running?.cancel()
        await running?.value
        logger.notice("forgot tangible \(removed.name) (\(id))",
                      metadata: ["tangible": "\(removed.name)", "tangible_id": "\(id)", "address": "\(removed.address ?? "-")"])
        guard removed.kind == .perc, let address = removed.address?.uppercased() else { return removed }
        guard let session = state.withLock({ $0.session }) else {
            throw ServiceLinksError.removeDeviceFailed(address: address, error: "BlueZ is not reachable")
        }
        guard let device = session.mirror.device(address: address) else { return removed }
        let adapter = device.adapter ?? device.path.parentAdapter
        do {
            try await BlueZCalls(connection: session.connection).removeDevice(device.path, from: adapter)
        } catch let error as DBusError where error.name == BlueZ.ErrorName.doesNotExist {
            // Gone already: nothing to remove.
        } catch {
            throw ServiceLinksError.removeDeviceFailed(address: address, error: "\(error)")
        }
        return removed
    }

    func requireSession() throws(ServiceLinksError) -> BlueZSession {
        guard config.enabled else { throw .bluetoothDisabled }
        let (session, problem) = state.withLock { ($0.session, $0.busProblem) }
        if let session { return session }
        if let problem { throw .noBus(bus: "\(bus)", reason: problem) }
        throw .notRunning
    }
}
