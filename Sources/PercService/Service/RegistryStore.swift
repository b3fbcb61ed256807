// Loads and saves the tangible registry file (JSON), atomically.
import Foundation

/// Reads and writes the registry at one path. A missing file is an empty registry; a file
/// that does not decode is an error naming the file (never silently replaced).
public struct RegistryStore: Sendable {
    public var path: String

    public init(path: String) { self.path = path }

    public struct LoadError: Error, CustomStringConvertible {
        var path: String
        var reason: String
        public var description: String {
            "tangible registry \(path): \(reason) (docs/configuration.md lists the keys); fix it, or move it away to start empty"
        }
    }

    public func load() throws -> TangibleRegistry {
        AtomicFile.removeStaleTemps(of: path)
        guard FileManager.default.fileExists(atPath: path) else { return TangibleRegistry() }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw LoadError(path: path, reason: error.localizedDescription)
        }
        do { return try RegistryCodec.decode(data) } catch {
            throw LoadError(path: path, reason: error.description)
        }
    }

    public func save(_ registry: TangibleRegistry) throws {
        try AtomicFile.write(try RegistryCodec.encode(registry), to: path)
    }
}
