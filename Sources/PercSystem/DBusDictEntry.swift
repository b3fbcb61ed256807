// One key/value pair of a D-Bus dictionary (`{kv}` inside `a{kv}`).

/// One entry of a `DBusValue.dictionary`. Entries are kept in wire order.
public struct DBusDictEntry: Sendable, Hashable {
    public var key: DBusValue
    public var value: DBusValue

    public init(_ key: DBusValue, _ value: DBusValue) {
        self.key = key
        self.value = value
    }
}
