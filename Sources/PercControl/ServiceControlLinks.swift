// The control API's pair/forget/statuses on `serve`'s BlueZ links (ServiceLinks).
import MTKTangibles
import PercBlueZ
import PercRuntime

/// Adapts `ServiceLinks` to `ControlLinks`: its errors become `ControlError`s with their
/// advice kept.
public struct ServiceControlLinks: ControlLinks {
    let links: ServiceLinks

    public init(links: ServiceLinks) { self.links = links }

    public func pair(address: String, name: String) async throws -> LinkPairing {
        let before = (try? links.store.load())?.tangibles.contains { $0.address?.uppercased() == address } ?? false
        do {
            let d = try await pairSoonAfterStart(address: address, name: name.isEmpty ? nil : name)
            return LinkPairing(address: address, name: d.name, profile: d.profile?.rawValue ?? "perc-v1", tangible: d.id, alreadyPaired: before)
        } catch let e as PercPairingError {
            if case .invalidAddress = e { throw ControlError(.InvalidArgument, e.description) }
            throw ControlError(.PairingFailed, e.description)
        } catch let e as ServiceLinksError {
            throw ControlError(.LinkFailed, e.description)
        } catch let e as TangibleRegistry.LookupError {
            throw ControlError(.NameTaken, e.description)
        }
    }

    /// Right after the service starts its links may not have reached BlueZ yet: a pairing
    /// asked for then waits up to 5 s for them instead of failing.
    private func pairSoonAfterStart(address: String, name: String?) async throws -> TangibleDefinition {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5)
        while true {
            do { return try await links.pair(address: address, name: name) } catch let e as ServiceLinksError where e == .notRunning && clock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    public func forget(id: TangibleID) async throws -> TangibleDefinition {
        do { return try await links.forget(id: id) } catch let e as ServiceLinksError {
            if case .unknownTangible = e { throw ControlError(.UnknownTangible, e.description) }
            throw ControlError(.LinkFailed, e.description)
        }
    }

    public func statuses() -> [LinkSummary] {
        let definitions = links.definitions
        let statuses = links.statuses()
        let counters = links.counters()
        return definitions.compactMap { d in
            guard let status = statuses[d.id], let address = d.address else { return nil }
            return LinkSummary(address: address.uppercased(), name: d.name, state: ServiceLinks.code(status),
                               profile: d.profile?.rawValue, tangible: d.id,
                               counters: counters[d.id] ?? .init(notifications: 0, lost: 0, linkUps: 0))
        }
    }
}
