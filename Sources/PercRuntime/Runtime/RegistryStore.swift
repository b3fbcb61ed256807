// Loads and saves the tangible registry file (JSON), atomically.
import Foundation
import Synchronization

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

    /// The one way the service and the demo change the registry: under `lock` (held by the
    /// one owner of this file in the process, so pair, forget, define and calibrate never
    /// overwrite each other), load it, let `body` change it, save it atomically. Returns
    /// `body`'s value and the registry as saved; throws what `body`, loading or saving throws
    /// (then nothing is saved).
    public func update<T: Sendable>(serialisedBy lock: borrowing Mutex<Void>,
                             _ body: (inout TangibleRegistry) throws -> T) throws -> (value: T, saved: TangibleRegistry) {
        try lock.withLock { _ throws -> (value: T, saved: TangibleRegistry) in
            var registry = try load()
            let value = try body(&registry)
            try save(registry)
            return (value, registry)
        }
    }
}
