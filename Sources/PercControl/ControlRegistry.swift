// How the control API changes the tangible registry: one serialised load → change → save → apply.
import MTKTangibles
import PercRuntime

/// The registry as the control API changes it. `serve` goes through `ServiceLinks`
/// (its `updateRegistry` also restarts links and applies the definitions between two
/// frames, where `--record` notes them); `demo` through `DirectRegistry`.
public protocol ControlRegistry: Sendable {
    var path: String { get }
    func load() throws -> TangibleRegistry
    /// Loads, lets `body` change the registry, saves it atomically and applies it.
    func update<T: Sendable>(_ body: (inout TangibleRegistry) throws -> T) throws -> T
}

extension ServiceLinks: ControlRegistry {
    public var path: String { store.path }
    public func load() throws -> TangibleRegistry { try store.load() }
    public func update<T: Sendable>(_ body: (inout TangibleRegistry) throws -> T) throws -> T { try updateRegistry(body) }
}
