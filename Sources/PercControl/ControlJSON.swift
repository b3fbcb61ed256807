// D-Bus values as JSON for the CLI's --json output (sorted keys, one object per line).
import Foundation
import PercSystem

/// Control API answers as JSON for the CLI's `--json` (sorted keys, one object per line).
public enum ControlJSON {
    /// A JSON-compatible Foundation value: dictionaries, arrays, numbers, strings, booleans.
    static func object(_ value: DBusValue) -> Any {
        switch value {
        case .byte(let v): return Int(v)
        case .boolean(let v): return v
        case .int16(let v): return Int(v)
        case .uint16(let v): return Int(v)
        case .int32(let v): return Int(v)
        case .uint32(let v): return Int(v)
        case .int64(let v): return v
        case .uint64(let v): return v
        case .double(let v): return v.isFinite ? v : NSNull()
        case .string(let v): return v
        case .objectPath(let p): return p.rawValue
        case .signature(let s): return s.rawValue
        case .unixFD: return NSNull()
        case .array(_, let items): return items.map(object)
        case .dictionary(_, _, let entries):
            var d: [String: Any] = [:]
            for e in entries { d[e.key.string ?? "\(e.key)"] = object(e.value) }
            return d
        case .structure(let fields): return fields.map(object)
        case .variant(let v): return object(v)
        }
    }

    public static func line(_ value: DBusValue) -> String {
        let o = object(value)
        guard JSONSerialization.isValidJSONObject(o),
              let data = try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}
