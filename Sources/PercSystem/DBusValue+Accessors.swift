// Typed reads of a DBusValue (`value.string`, `value.bytes`, `value.stringVariantDictionary`, …).

extension DBusValue {
    /// The value inside any number of variants (`v` of `v` of `s` → `s`).
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// Strings (also object paths and signatures, which are strings on the wire); looks through variants.
    public var string: String? {
        switch unwrapped {
        case .string(let s): s
        case .objectPath(let p): p.rawValue
        case .signature(let g): g.rawValue
        default: nil
        }
    }

    public var bool: Bool? { if case .boolean(let b) = unwrapped { b } else { nil } }
    public var byte: UInt8? { if case .byte(let b) = unwrapped { b } else { nil } }
    public var double: Double? { if case .double(let d) = unwrapped { d } else { nil } }
    public var objectPath: DBusObjectPath? { if case .objectPath(let p) = unwrapped { p } else { nil } }
    public var fileDescriptor: DBusFileDescriptor? { if case .unixFD(let fd) = unwrapped { fd } else { nil } }

    /// Any integer type (`y n q i u x t`) as `Int64`; nil for other types and for `t` above `Int64.max`.
    public var int64: Int64? {
        switch unwrapped {
        case .byte(let v): Int64(v)
        case .int16(let v): Int64(v)
        case .uint16(let v): Int64(v)
        case .int32(let v): Int64(v)
        case .uint32(let v): Int64(v)
        case .int64(let v): v
        case .uint64(let v): Int64(exactly: v)
        default: nil
        }
    }

    /// Any integer that fits `Int` (`RSSI` is `n`, `MTU` is `q`, …).
    public var int: Int? { int64.flatMap { Int(exactly: $0) } }

    /// `ay` as bytes.
    public var bytes: [UInt8]? {
        guard case .array(let element, let items) = unwrapped, element.rawValue == "y" else { return nil }
        return items.map { if case .byte(let b) = $0 { b } else { 0 } }
    }

    /// The elements of any array (not of dictionaries).
    public var array: [DBusValue]? { if case .array(_, let items) = unwrapped { items } else { nil } }

    /// `as` (also `ao`, `ag`) as strings.
    public var stringArray: [String]? {
        guard let items = array else { return nil }
        let strings = items.compactMap(\.string)
        return strings.count == items.count ? strings : nil
    }

    /// The fields of a struct.
    public var structure: [DBusValue]? { if case .structure(let fields) = unwrapped { fields } else { nil } }

    /// The entries of a dictionary, in wire order.
    public var dictionaryEntries: [DBusDictEntry]? {
        if case .dictionary(_, _, let entries) = unwrapped { entries } else { nil }
    }

    /// Any dictionary as a Swift dictionary (the last entry wins for repeated keys).
    public var dictionary: [DBusValue: DBusValue]? {
        guard let entries = dictionaryEntries else { return nil }
        return Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// `a{sv}` (properties, options) as `[String: DBusValue]` with the variants unwrapped.
    /// Also accepts `a{s<T>}` for any T.
    public var stringVariantDictionary: [String: DBusValue]? {
        guard case .dictionary(let key, _, let entries) = unwrapped, key.rawValue == "s" else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard case .string(let k) = entry.key else { return nil }
            result[k] = entry.value.unwrapped
        }
        return result
    }
}
