// Short ways to build common D-Bus values (`ay`, `as`, `ao`, `a{sv}`, other dictionaries).

extension DBusValue {
    /// `ay`.
    public static func bytes(_ bytes: [UInt8]) -> DBusValue { .array(element: "y", bytes.map { .byte($0) }) }

    /// `as`.
    public static func stringArray(_ strings: [String]) -> DBusValue { .array(element: "s", strings.map { .string($0) }) }

    /// `ao`.
    static func objectPathArray(_ paths: [DBusObjectPath]) -> DBusValue {
        .array(element: "o", paths.map { .objectPath($0) })
    }

    /// `a{sv}`: each value is wrapped in a variant (unless it already is one); keys sorted.
    public static func stringVariantDictionary(_ dictionary: [String: DBusValue]) -> DBusValue {
        .dictionary(key: "s", value: "v", dictionary.sorted { $0.key < $1.key }.map { key, value in
            if case .variant = value { return DBusDictEntry(.string(key), value) }
            return DBusDictEntry(.string(key), .variant(value))
        })
    }

    /// A dictionary of the given key and value types from pairs (checked when sent).
    public static func dictionary(key: DBusSignature, value: DBusSignature, pairs: [(DBusValue, DBusValue)]) -> DBusValue {
        .dictionary(key: key, value: value, pairs.map { DBusDictEntry($0.0, $0.1) })
    }
}
