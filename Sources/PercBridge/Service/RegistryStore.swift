// Loads and saves the tangible registry file (JSON), atomically.
import Foundation

/// Reads and writes the registry at one path. A missing file is an empty registry; a file
/// that does not decode is an error naming the file (never silently replaced).
struct RegistryStore: Sendable {
    var path: String

    struct LoadError: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String {
            "cannot read the tangible registry \(path): \(reason); restore it from a backup or move it away to start empty"
        }
    }

    func load() throws -> TangibleRegistry {
        AtomicFile.removeStaleTemps(of: path)
        guard FileManager.default.fileExists(atPath: path) else { return TangibleRegistry() }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw LoadError(path: path, reason: error.localizedDescription)
        }
        do {
            let registry = try JSONDecoder().decode(TangibleRegistry.self, from: data)
            guard registry.version == TangibleRegistry.formatVersion else {
                throw LoadError(path: path, reason: "format version \(registry.version), this build reads \(TangibleRegistry.formatVersion)")
            }
            return registry
        } catch let e as LoadError { throw e } catch {
            throw LoadError(path: path, reason: "not a registry file (\(error))")
        }
    }

    func save(_ registry: TangibleRegistry) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicFile.write(try encoder.encode(registry), to: path)
    }
}
