// An OSC bundle: a time tag and its elements (messages or nested bundles).

/// An OSC bundle (`#bundle`, a time tag, then size-prefixed elements).
public struct OSCBundle: Hashable, Sendable {
    public var timeTag: OSCTimeTag
    public var elements: [OSCPacket]

    public init(timeTag: OSCTimeTag = .immediately, _ elements: [OSCPacket] = []) {
        self.timeTag = timeTag
        self.elements = elements
    }

    /// All messages of the bundle and its nested bundles, depth first, in order.
    var flattenedMessages: [OSCMessage] {
        var out: [OSCMessage] = []
        for e in elements {
            switch e {
            case .message(let m): out.append(m)
            case .bundle(let b): out.append(contentsOf: b.flattenedMessages)
            }
        }
        return out
    }
}
