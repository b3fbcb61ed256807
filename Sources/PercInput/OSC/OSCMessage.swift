// An OSC message: an address pattern and typed arguments.

/// An OSC message such as `/tuio/2Dcur set 3 0.5 0.5 0 0 0`.
public struct OSCMessage: Hashable, Sendable, CustomStringConvertible {
    public var address: String
    public var arguments: [OSCArgument]

    public init(_ address: String, _ arguments: [OSCArgument] = []) {
        self.address = address
        self.arguments = arguments
    }

    /// The type tag string without the leading comma (e.g. `sifff`).
    var typeTags: String { String(decoding: arguments.map(\.typeTag), as: UTF8.self) }

    public var description: String {
        "\(address) ,\(typeTags) " + arguments.map { "\($0)" }.joined(separator: " ")
    }
}
