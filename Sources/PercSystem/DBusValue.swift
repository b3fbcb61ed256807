// Every D-Bus type as one Swift value: what the D-Bus layer marshals and unmarshals.

/// One D-Bus value of any type.
///
/// Containers carry their element types so that empty arrays and dictionaries still have a
/// signature. Build dictionaries with `DBusValue.dictionary(_:)` helpers (see
/// `DBusValue+Builders.swift`) and read them with accessors such as `value.string`,
/// `value.bytes` or `value.stringVariantDictionary` (see `DBusValue+Accessors.swift`).
public enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(DBusObjectPath)
    case signature(DBusSignature)
    /// A Unix file descriptor: the value owns it and closes it when the last copy goes away.
    case unixFD(DBusFileDescriptor)
    /// An array; `element` is the signature of one element (e.g. `"y"` for `ay`).
    case array(element: DBusSignature, [DBusValue])
    /// A dictionary `a{kv}`; `key` must be a basic type. Entries keep their wire order.
    case dictionary(key: DBusSignature, value: DBusSignature, [DBusDictEntry])
    /// A struct `(…)` with at least one field.
    case structure([DBusValue])
    /// A variant `v`: any single value together with its type.
    indirect case variant(DBusValue)

    /// The D-Bus signature of this value (one complete type), e.g. `a{sv}`.
    public var signature: DBusSignature { DBusSignature(unchecked: signatureString) }

    var signatureString: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .array(let element, _): "a" + element.rawValue
        case .dictionary(let key, let value, _): "a{" + key.rawValue + value.rawValue + "}"
        case .structure(let fields): "(" + fields.map(\.signatureString).joined() + ")"
        case .variant: "v"
        }
    }

    /// The signature of a list of values (a message body), e.g. `sa{sv}as`.
    public static func signature(of values: [DBusValue]) -> DBusSignature {
        DBusSignature(unchecked: values.map(\.signatureString).joined())
    }
}
