// Reassembles MTK serial frames from notifications: split, joined, with garbage in between.

/// Turns the byte stream of an MTK serial characteristic into frames (PROTOCOLS.md §2).
///
/// Notifications are arbitrary slices of the stream: a frame may be split across several and
/// several may share one. Bytes outside `[…]` and bodies that do not parse are counted as
/// garbage and skipped; a `[` that never closes within `maxFrameLength` bytes is dropped so
/// that one lost `]` cannot swallow the stream.
struct MTKSerialFramer: Sendable {
    static let maxFrameLength = 32
    private var pending: [UInt8] = []
    private(set) var garbage = 0

    /// Drops a half-received frame (after a reconnect the stream starts afresh).
    mutating func reset() { pending.removeAll() }

    mutating func feed(_ bytes: some Collection<UInt8>) -> [MTKFrame] {
        var frames: [MTKFrame] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "["):
                garbage += pending.count  // an unclosed frame before this one
                pending = [byte]
            case UInt8(ascii: "]") where !pending.isEmpty:
                if let frame = MTKFrame(body: pending.dropFirst()) {
                    frames.append(frame)
                } else {
                    garbage += pending.count + 1
                }
                pending.removeAll()
            default:
                if pending.isEmpty {
                    // Line ends and stray bytes between frames.
                    if byte != UInt8(ascii: "\r"), byte != UInt8(ascii: "\n") { garbage += 1 }
                } else if pending.count >= Self.maxFrameLength {
                    garbage += pending.count + 1
                    pending.removeAll()
                } else {
                    pending.append(byte)
                }
            }
        }
        return frames
    }
}
