// A change of a bus name's owner (the bus daemon's NameOwnerChanged signal), as a value.

/// `NameOwnerChanged(name, old, new)`; an empty owner is nil.
struct DBusNameOwnerChange: Sendable, Hashable {
    public var name: String
    var oldOwner: String?
    public var newOwner: String?

    public init(name: String, oldOwner: String?, newOwner: String?) {
        self.name = name
        self.oldOwner = oldOwner
        self.newOwner = newOwner
    }

    /// Parses the signal's `(sss)` arguments.
    init?(_ signal: DBusSignal) {
        let a = signal.arguments
        guard a.count == 3, case .string(let name) = a[0], case .string(let old) = a[1], case .string(let new) = a[2] else { return nil }
        self.init(name: name, oldOwner: old.isEmpty ? nil : old, newOwner: new.isEmpty ? nil : new)
    }
}
