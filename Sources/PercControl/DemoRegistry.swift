// The demo's tangible registry: a temp file (or --registry FILE) started from the scenario.
import Foundation
import MTKTangibles
import MTKSimulator
import PercRuntime

/// Where the demo keeps its registry. A new file starts with the scenario's tangibles,
/// except the ones the scenario leaves for the walk-through to define; a temp file is
/// removed when the demo ends.
public struct DemoRegistry: Sendable {
    public let store: RegistryStore
    private let temporary: URL?

    public static func open(path: String?, scenario: Scenario, world: SimWorld) throws -> DemoRegistry {
        let undefined: Set<TangibleID> = scenario.name == DemoPairingScenario.name ? [DemoPairingScenario.newPercID] : []
        var temporary: URL?
        let file: String
        if let path { file = path } else {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("percbridge-demo-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            temporary = dir
            file = dir.appendingPathComponent("tangibles.json").path
        }
        let store = RegistryStore(path: file)
        if !FileManager.default.fileExists(atPath: file) {
            try store.save(TangibleRegistry(tangibles: world.definitions.filter { !undefined.contains($0.id) }))
        }
        return DemoRegistry(store: store, temporary: temporary)
    }

    public func cleanUp() {
        if let temporary { try? FileManager.default.removeItem(at: temporary) }
    }
}
