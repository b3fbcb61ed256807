// The demo's registry for the control API: save the file, then hand the definitions on.
import MTKTangibles
import Synchronization
import PercRuntime

/// The demo's registry: saves the file, then `apply` passes the definitions to the demo loop
/// (the engine takes them at the next frame), the app hub and the virtual links.
public final class DirectRegistry: ControlRegistry {
    let store: RegistryStore
    private let apply: @Sendable ([TangibleDefinition]) -> Void
    private let lock = Mutex(())

    public init(store: RegistryStore, apply: @escaping @Sendable ([TangibleDefinition]) -> Void) {
        self.store = store; self.apply = apply
    }

    public var path: String { store.path }
    public func load() throws -> TangibleRegistry { try store.load() }

    public func update<T: Sendable>(_ body: (inout TangibleRegistry) throws -> T) throws -> T {
        let (value, saved) = try store.update(serialisedBy: lock, body)
        apply(saved.tangibles)
        return value
    }
}
