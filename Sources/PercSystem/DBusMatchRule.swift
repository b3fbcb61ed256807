// A D-Bus match rule (what AddMatch is told) that is also checked locally on each signal.

/// Selects signals. The bus daemon gets the rule's text through `AddMatch`; the event loop
/// checks the same fields locally so that each subscription sees only its own signals.
///
/// `sender` is checked locally when it is a unique name (`:1.42`) or the bus itself; for a
/// well-known name (`org.bluez`) the connection follows the name's owner through
/// `NameOwnerChanged` and compares against it.
public struct DBusMatchRule: Sendable, Hashable, CustomStringConvertible {
    public var sender: String?
    public var path: DBusObjectPath?
    /// Matches this path and every path below it.
    public var pathNamespace: DBusObjectPath?
    public var interface: String?
    public var member: String?
    /// `argN='value'`: the N-th argument must be this string.
    public var arguments: [Int: String]

    public init(sender: String? = nil, path: DBusObjectPath? = nil, pathNamespace: DBusObjectPath? = nil,
                interface: String? = nil, member: String? = nil, arguments: [Int: String] = [:]) {
        self.sender = sender
        self.path = path
        self.pathNamespace = pathNamespace
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }

    /// The rule in D-Bus syntax, e.g. `type='signal',interface='org.freedesktop.DBus.Properties'`.
    public var description: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            // A quote inside a value is written as '\'' (close, escaped quote, reopen).
            parts.append("\(key)='\(value.replacingOccurrences(of: "'", with: "'\\''"))'")
        }
        add("sender", sender)
        add("path", path?.rawValue)
        add("path_namespace", pathNamespace?.rawValue)
        add("interface", interface)
        add("member", member)
        for (index, value) in arguments.sorted(by: { $0.key < $1.key }) { add("arg\(index)", value) }
        return parts.joined(separator: ",")
    }

    /// Checks names and argument indexes before the rule goes to the bus.
    func validate() throws {
        if let sender { try DBusNames.checkBusName(sender) }
        if let interface { try DBusNames.checkInterface(interface) }
        if let member { try DBusNames.checkMember(member) }
        for index in arguments.keys where !(0...63).contains(index) {
            throw DBusError(.invalidArgs, "match rule argument index \(index) is out of range 0...63")
        }
        if path != nil, pathNamespace != nil {
            throw DBusError(.invalidArgs, "a match rule may have path or path_namespace, not both")
        }
    }

    /// True when the sender name must be resolved to its owner to be compared.
    var senderIsWellKnown: Bool {
        guard let sender else { return false }
        return !sender.hasPrefix(":") && sender != "org.freedesktop.DBus"
    }

    /// Header part of the local check (cheap; no arguments needed).
    func matchesHeader(sender senderName: String, owner: String?, path p: DBusObjectPath, interface i: String, member m: String) -> Bool {
        if let interface, interface != i { return false }
        if let member, member != m { return false }
        if let path, path != p { return false }
        if let pathNamespace, !p.isWithin(pathNamespace) { return false }
        if let sender {
            if senderIsWellKnown {
                // Unknown owner: trust the bus's own filtering rather than drop signals.
                if let owner, owner != senderName { return false }
            } else if sender != senderName {
                return false
            }
        }
        return true
    }

    /// Argument part of the local check.
    func matchesArguments(_ values: [DBusValue]) -> Bool {
        for (index, expected) in arguments {
            guard index < values.count, case .string(let s) = values[index], s == expected else { return false }
        }
        return true
    }
}
