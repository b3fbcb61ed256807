// The known tangibles: definitions, names and BLE addresses, as stored in the registry file.
import MTKTangibles

/// The registry's content (a value): every defined tangible, keyed by its numeric id
/// (which is also its TUIO class id). Persisted by `RegistryStore` in `RegistryCodec`'s spelling.
public struct TangibleRegistry: Hashable, Sendable {
    public var tangibles: [TangibleDefinition] = []

    public init(tangibles: [TangibleDefinition] = []) { self.tangibles = tangibles }

    public enum LookupError: Error, CustomStringConvertible {
        case unknown(String)
        case nameTaken(String)
        case addressTaken(String, TangibleID)
        public var description: String {
            switch self {
            case .unknown(let k): "no tangible \"\(k)\" in the registry; `percbridge list` shows the known ones"
            case .nameTaken(let n): "a tangible named \"\(n)\" exists already; choose another name or forget it first"
            case .addressTaken(let a, let id): "\(a) belongs to tangible \(id) already; forget it first"
            }
        }
    }

    var nextID: TangibleID { (tangibles.map(\.id).max() ?? 0) + 1 }

    public func definition(_ id: TangibleID) -> TangibleDefinition? { tangibles.first { $0.id == id } }

    /// Finds a tangible by id, name or BLE address (case-insensitive).
    public func find(_ key: String) -> TangibleDefinition? {
        if let id = Int(key), let d = definition(id) { return d }
        return tangibles.first { $0.name == key || ($0.address?.uppercased() == key.uppercased()) }
    }

    /// Adds `definition` with a fresh id (its `id` is ignored); returns the stored one.
    public mutating func add(_ definition: TangibleDefinition) throws -> TangibleDefinition {
        if tangibles.contains(where: { $0.name == definition.name }) { throw LookupError.nameTaken(definition.name) }
        if let a = definition.address, let other = tangibles.first(where: { $0.address?.uppercased() == a.uppercased() }) {
            throw LookupError.addressTaken(a, other.id)
        }
        var d = definition
        d.id = nextID
        tangibles.append(d)
        return d
    }

    /// Replaces the stored definition of the same id.
    public mutating func update(_ definition: TangibleDefinition) throws {
        guard let i = tangibles.firstIndex(where: { $0.id == definition.id }) else {
            throw LookupError.unknown(String(definition.id))
        }
        tangibles[i] = definition
    }

    /// Removes the tangible named by id, name or address; returns what was removed.
    public mutating func forget(_ key: String) throws -> TangibleDefinition {
        guard let d = find(key) else { throw LookupError.unknown(key) }
        tangibles.removeAll { $0.id == d.id }
        return d
    }
}
