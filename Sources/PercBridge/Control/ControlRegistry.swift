// How the control API changes the tangible registry: one serialised load → change → save → apply.
import MTKTangibles
import Synchronization

/// The registry as the control API changes it. `serve` goes through `ServiceLinks`
/// (its `updateRegistry` also restarts links and applies the definitions between two
/// frames, where `--record` notes them); `demo` through `DirectRegistry`.
protocol ControlRegistry: Sendable {
    var path: String { get }
    func load() throws -> TangibleRegistry
    /// Loads, lets `body` change the registry, saves it atomically and applies it.
    func update<T: Sendable>(_ body: (inout TangibleRegistry) throws -> T) throws -> T
}

/// The demo's registry: the file, then the pipeline, the app hub and the virtual links at once.
final class DirectRegistry: ControlRegistry {
    let store: RegistryStore
    private let apply: @Sendable ([TangibleDefinition]) -> Void
    private let lock = Mutex(())

    init(store: RegistryStore, apply: @escaping @Sendable ([TangibleDefinition]) -> Void) {
        self.store = store; self.apply = apply
    }

    var path: String { store.path }
    func load() throws -> TangibleRegistry { try store.load() }

    func update<T: Sendable>(_ body: (inout TangibleRegistry) throws -> T) throws -> T {
        let (value, registry) = try lock.withLock { _ throws -> (T, TangibleRegistry) in
            var registry = try store.load()
            let value = try body(&registry)
            try store.save(registry)
            return (value, registry)
        }
        apply(registry.tangibles)
        return value
    }
}

extension ServiceLinks: ControlRegistry {
    var path: String { store.path }
    func load() throws -> TangibleRegistry { try store.load() }
    func update<T: Sendable>(_ body: (inout TangibleRegistry) throws -> T) throws -> T { try updateRegistry(body) }
}
