// App and control actuation requests (LED, vibration, beep) routed to the right PERC link.
import MTKTangibles
import PercBlueZ

extension ServiceLinks {
    /// For the app protocol's `actuate`: checks at once that the tangible is a connected PERC
    /// (the error says why not), then writes in the background; a failed write is logged.
    public func actuateInBackground(_ id: TangibleID, _ actuation: PercActuation) -> ServiceLinksError? {
        let link: PercLink
        do { link = try connectedLink(id) } catch { return error }
        let logger = logger
        Task {
            do { try await link.actuate(actuation) } catch {
                logger.warning("actuating tangible \(id) (\(actuation)) failed: \(error)",
                               metadata: ["tangible_id": "\(id)", "address": "\(link.configuration.address)"])
            }
        }
        return nil
    }

    /// For the control API: waits for BlueZ's answer.
    func send(_ actuation: PercActuation, to id: TangibleID) async throws {
        try await connectedLink(id).actuate(actuation)
    }

    func connectedLink(_ id: TangibleID) throws(ServiceLinksError) -> PercLink {
        let enabled = config.enabled
        let bus = bus
        return try state.withLock { s throws(ServiceLinksError) -> PercLink in
            guard let d = s.definitions.first(where: { $0.id == id }) else { throw .unknownTangible(id) }
            guard d.kind == .perc else { throw .notAPerc(id, name: d.name) }
            guard d.address != nil else { throw .noAddress(id, name: d.name) }
            guard enabled else { throw .bluetoothDisabled }
            guard let link = s.entries[id]?.link else {
                if let problem = s.busProblem { throw .noBus(bus: "\(bus)", reason: problem) }
                throw .notRunning
            }
            guard let status = s.statuses[id], status.isConnected else {
                throw .notConnected(id, name: d.name, status: s.statuses[id]?.description ?? "starting")
            }
            return link
        }
    }
}
