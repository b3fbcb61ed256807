// The registry file's spelling of tangibles: the app protocol's `hello` spelling, optional keys
// with defaults, and the older spelling (format 1) still read. docs/configuration.md lists every key.
import Foundation
import MTKTangibles
import PercBlueZ
import PercInput

/// Reads and writes `TangibleRegistry` as JSON. Writes format 2; reads 1 and 2. A problem names
/// the tangible (its position and name) and the key, and says what is allowed.
enum RegistryCodec {
    static let formatVersion = 2
    static let defaultFootprintRadius = 30.0

    /// One problem in the file; `RegistryStore` adds the file's path.
    struct Problem: Error, CustomStringConvertible {
        var tangible: String?
        var key: String?
        var message: String
        var description: String {
            [tangible, key.map { "key \"\($0)\"" }, message].compactMap { $0 }.joined(separator: ": ")
        }
    }

    /// The keys of one tangible, new spelling first; older spellings after `/`.
    static let keys = ["id", "name", "kind", "markers", "footprint_radius_mm", "footprint_polygon", "light_sensor",
                       "address", "profile", "light_white_value"]
    private static let oldKeys = ["footprint": "footprint_radius_mm", "lightSensorOffset": "light_sensor",
                                  "lightWhiteValue": "light_white_value"]

    // MARK: writing

    private struct FileJSON: Encodable {
        var version: Int
        var tangibles: [TangibleJSON]
    }

    private struct TangibleJSON: Encodable {
        var id: Int
        var name: String
        var kind: String
        var markers: [[Double]]
        var footprint_radius_mm: Double?
        var footprint_polygon: [[Double]]?
        var light_sensor: [Double]?
        var address: String?
        var profile: String?
        var light_white_value: Int?
    }

    static func encode(_ registry: TangibleRegistry) throws -> Data {
        let file = FileJSON(version: formatVersion, tangibles: registry.tangibles.map { d in
            var radius: Double?, polygon: [[Double]]?
            switch d.footprint {
            case .circle(let r): radius = r
            case .polygon(let vs): polygon = vs.map { [$0.x, $0.y] }
            }
            return TangibleJSON(id: d.id, name: d.name, kind: d.kind.rawValue, markers: d.markers.map { [$0.x, $0.y] },
                                footprint_radius_mm: radius, footprint_polygon: polygon,
                                light_sensor: d.lightSensorOffset.map { [$0.x, $0.y] }, address: d.address,
                                profile: d.profile?.rawValue,
                                light_white_value: d.kind == .perc ? d.lightWhiteValue : nil)
        })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(file)
    }

    // MARK: reading

    static func decode(_ data: Data) throws(Problem) -> TangibleRegistry {
        let root: JSONValue
        do { root = try JSONDecoder().decode(JSONValue.self, from: data) } catch {
            throw Problem(message: "not JSON (\(error))")
        }
        guard case .object(let object) = root else { throw Problem(message: "expected a JSON object {\"version\": 2, \"tangibles\": [...]}") }
        guard let version = object["version"].flatMap(integer) else {
            throw Problem(key: "version", message: "missing or not a whole number; this build reads 1 and 2")
        }
        guard version == 1 || version == 2 else {
            throw Problem(key: "version", message: "format \(version); this build reads 1 and 2 (a newer percbridge wrote it?)")
        }
        for key in object.keys.sorted() where key != "version" && key != "tangibles" {
            throw Problem(key: key, message: "unknown; a registry has \"version\" and \"tangibles\"")
        }
        guard let items = (object["tangibles"] ?? .array([])).array else {
            throw Problem(key: "tangibles", message: "expected an array of tangibles")
        }
        var registry = TangibleRegistry()
        var ids = Set<Int>()
        for (index, item) in items.enumerated() {
            let d = try tangible(item, index: index)
            if !ids.insert(d.id).inserted { throw Problem(tangible: label(index, d.name), key: "id", message: "\(d.id) is used twice; ids must be unique") }
            registry.tangibles.append(d)
        }
        return registry
    }

    private static func label(_ index: Int, _ name: String?) -> String {
        name.map { "tangible \(index + 1) (\"\($0)\")" } ?? "tangible \(index + 1)"
    }

    private static func tangible(_ item: JSONValue, index: Int) throws(Problem) -> TangibleDefinition {
        guard case .object(let t) = item else { throw Problem(tangible: label(index, nil), message: "expected a JSON object") }
        let name = t["name"]?.string
        func fail(_ key: String, _ message: String) -> Problem { Problem(tangible: label(index, name), key: key, message: message) }
        for key in t.keys.sorted() where !keys.contains(key) && oldKeys[key] == nil {
            throw fail(key, "unknown; known keys: \(keys.joined(separator: ", "))")
        }
        guard let id = t["id"].flatMap(integer), id >= 1 else { throw fail("id", "missing or not a whole number ≥ 1 (it is also the TUIO class id)") }
        guard let name, !name.isEmpty else { throw fail("name", "missing or empty") }
        var address: String?
        if let v = t["address"] {
            guard let s = v.string, BlueZ.isAddress(s) else { throw fail("address", "expected a BLE address AA:BB:CC:DD:EE:FF") }
            address = s.uppercased()
        }
        let sensorKey = t["light_sensor"] != nil ? "light_sensor" : "lightSensorOffset"
        let kind: TangibleDefinition.Kind
        switch t["kind"] {
        case nil: kind = address != nil || t[sensorKey] != nil ? .perc : .puc
        case .string(let s)?:
            guard let k = TangibleDefinition.Kind(rawValue: s) else { throw fail("kind", "\"\(s)\"; allowed: perc, puc") }
            kind = k
        default: throw fail("kind", "expected \"perc\" or \"puc\"")
        }
        guard let markerList = t["markers"]?.array, markerList.count == 3 else {
            throw fail("markers", "expected three marker positions [[x, y], [x, y], [x, y]] in mm")
        }
        var markers: [Vec2] = []
        for m in markerList {
            guard let p = point(m) else { throw fail("markers", "each marker is [x, y] in mm (finite numbers)") }
            markers.append(p)
        }
        var footprint = Footprint.circle(radius: defaultFootprintRadius)
        if let r = t["footprint_radius_mm"] {
            guard let radius = r.number, radius > 0, radius <= 1000 else { throw fail("footprint_radius_mm", "expected a radius in mm, above 0 and at most 1000") }
            footprint = .circle(radius: radius)
        } else if let polygon = t["footprint_polygon"] {
            let corners = polygon.array ?? []
            let ps = corners.compactMap(point)
            guard corners.count >= 3, ps.count == corners.count else {
                throw fail("footprint_polygon", "expected at least three corners [[x, y], ...] in mm")
            }
            footprint = .polygon(ps)
        } else if let old = t["footprint"] {
            guard let f = oldFootprint(old) else { throw fail("footprint", "expected {\"circle\": {\"radius\": R}} (format 1); write footprint_radius_mm: R instead") }
            footprint = f
        }
        var sensor: Vec2?
        if let v = t[sensorKey] {
            guard let p = point(v) else { throw fail(sensorKey, "expected [x, y] in mm, in the tangible's own frame") }
            sensor = p
        }
        var profile: PercProfile?
        if let v = t["profile"] {
            guard let s = v.string, let p = PercProfile(rawValue: s) else {
                throw fail("profile", "allowed: \(PercProfile.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            profile = p
        }
        let whiteKey = t["light_white_value"] != nil ? "light_white_value" : "lightWhiteValue"
        var white = 1
        if let w = t[whiteKey] {
            guard let v = integer(w), v == 0 || v == 1 else { throw fail(whiteKey, "expected 0 or 1 (the light value that means white)") }
            white = v
        }
        return TangibleDefinition(id: id, name: name, kind: kind, markers: markers, footprint: footprint,
                                  lightSensorOffset: sensor, address: address, profile: profile, lightWhiteValue: white)
    }

    private static func integer(_ v: JSONValue) -> Int? {
        guard let d = v.number, d == d.rounded(), abs(d) < 1e9 else { return nil }
        return Int(d)
    }

    /// `[x, y]`, or `{"x": x, "y": y}` (format 1).
    private static func point(_ v: JSONValue) -> Vec2? {
        if let a = v.array, a.count == 2, let x = a[0].number, let y = a[1].number { return Vec2(x, y) }
        if case .object(let o) = v, o.count == 2, let x = o["x"]?.number, let y = o["y"]?.number { return Vec2(x, y) }
        return nil
    }

    private static func oldFootprint(_ v: JSONValue) -> Footprint? {
        guard case .object(let o) = v, o.count == 1 else { return nil }
        if let r = o["circle"]?["radius"]?.number, r > 0 { return .circle(radius: r) }
        if let corners = o["polygon"]?["_0"]?.array {
            let ps = corners.compactMap(point)
            if ps.count == corners.count, ps.count >= 3 { return .polygon(ps) }
        }
        return nil
    }
}
