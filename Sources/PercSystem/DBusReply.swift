// The body of a method return, with checks of its signature.

/// What a method call returned.
public struct DBusReply: Sendable, Hashable {
    /// Unique name of the peer that answered.
    public var sender: String
    public var arguments: [DBusValue]
    public var signature: DBusSignature { DBusValue.signature(of: arguments) }

    public init(sender: String, arguments: [DBusValue]) {
        self.sender = sender
        self.arguments = arguments
    }

    /// The arguments, after checking that their signature is exactly `expected`.
    /// Throws `InvalidSignature` naming both signatures otherwise.
    public func values(as expected: DBusSignature) throws -> [DBusValue] {
        guard signature == expected else {
            throw DBusError(.invalidSignature, "unexpected reply: expected signature '\(expected)', got '\(signature)'")
        }
        return arguments
    }

    /// The one argument of a reply whose signature must be exactly `expected` (one complete type).
    public func value(as expected: DBusSignature) throws -> DBusValue {
        let values = try values(as: expected)
        guard values.count == 1 else {
            throw DBusError(.invalidSignature, "unexpected reply: expected one value of type '\(expected)', got \(values.count)")
        }
        return values[0]
    }
}
