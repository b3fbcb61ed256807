// What the control API needs from the BLE side: pair, forget, link states, new definitions.
import MTKTangibles

/// The BLE links as the control API sees them. `serve` backs it with BlueZ links
/// (`ServiceLinks`), `demo` with the simulator's virtual modules (`DemoLinks`).
protocol ControlLinks: Sendable {
    /// Pairs, trusts and connects the module at `address`. Throws `ControlError`.
    func pair(address: String, name: String) async throws -> LinkPairing
    /// Disconnects and removes the module at `address` (after its tangible was forgotten).
    func forget(address: String) async throws
    /// Every module the service knows of (paired ones, and for the demo the ones in range).
    func statuses() -> [LinkSummary]
    /// Whether the module at `address` is paired; nil when this side cannot tell.
    func isPaired(_ address: String) -> Bool?
    /// The registry changed: route sensor events of the modules to the tangibles now named.
    func definitionsChanged(_ definitions: [TangibleDefinition])
}

/// The outcome of a pairing.
struct LinkPairing: Sendable, Hashable {
    var address: String
    var name: String
    var profile: String
    var alreadyPaired: Bool
}

/// One module's link, for List and Status.
struct LinkSummary: Sendable, Hashable {
    var address: String
    var name: String
    /// `connected`, `connecting`, `paired`, `in range` (not paired), `out of range`.
    var state: String
    var profile: String?
    var tangible: TangibleID?
}

/// A service without BLE links (no BlueZ wiring): pairing is refused with what to do.
struct NoLinks: ControlLinks {
    var reason = "this service has no BlueZ links; pair with `percbridge pair --direct ADDRESS` and restart the service"

    func pair(address: String, name: String) async throws -> LinkPairing { throw ControlError(.NotSupported, reason) }
    func forget(address: String) async throws {}
    func statuses() -> [LinkSummary] { [] }
    func isPaired(_ address: String) -> Bool? { nil }
    func definitionsChanged(_ definitions: [TangibleDefinition]) {}
}
