// The unit of OSC transport (one UDP datagram): a message or a bundle. The codec's entry points.

/// A complete OSC packet.
///
/// Encode: `packet.encoded()` (a multiple of 4 bytes). Decode: `try OSCPacket.decode(bytes)`,
/// which validates strictly and throws an `OSCDecodeError` naming the byte offset; it never
/// traps on any input.
public indirect enum OSCPacket: Hashable, Sendable {
    case message(OSCMessage)
    case bundle(OSCBundle)

    /// Bundles nested deeper than this are rejected (bounds recursion on hostile input).
    static let maxNesting = 16

    public func encoded() -> [UInt8] {
        var w = OSCWriter()
        w.write(self)
        return w.bytes
    }

    /// A bundle of elements that are already encoded: for a sender that packs the same
    /// messages into bundles of different sizes without encoding any of them twice.
    public static func encodedBundle(timeTag: OSCTimeTag = .immediately, elements: [[UInt8]]) -> [UInt8] {
        var w = OSCWriter()
        w.bytes.reserveCapacity(16 + elements.reduce(0) { $0 + 4 + $1.count })
        w.writeBundleHead(timeTag)
        for e in elements { w.writeElement(e) }
        return w.bytes
    }

    public static func decode(_ bytes: [UInt8]) throws(OSCDecodeError) -> OSCPacket {
        var r = OSCReader(bytes: bytes, start: 0, end: bytes.count)
        return try r.readPacket(depth: 0)
    }

    /// All messages in order (the message itself, or a bundle's messages depth first).
    public var messages: [OSCMessage] {
        switch self {
        case .message(let m): [m]
        case .bundle(let b): b.flattenedMessages
        }
    }
}
