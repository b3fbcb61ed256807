// What the control API needs from the BLE side: pair, forget, link states.
import MTKTangibles
import PercRuntime

/// The PERC modules as the control API sees them. `serve` backs it with BlueZ
/// (`ServiceControlLinks` over `ServiceLinks`), `demo` with the simulator's modules (`DemoLinks`).
public protocol ControlLinks: Sendable {
    /// Pairs, trusts and connects the module at `address` and makes sure the registry has a
    /// PERC for it (a standard PERC named `name`, or as the module calls itself, until
    /// `define` measures it). Throws `ControlError`.
    func pair(address: String, name: String) async throws -> LinkPairing
    /// Removes the tangible from the registry and, for a PERC, its module from BlueZ.
    func forget(id: TangibleID) async throws -> TangibleDefinition
    /// Every module the service knows of (registered ones; for the demo also those in range).
    func statuses() -> [LinkSummary]
}
