// Parses OSC bytes with bounds checks on every read; every failure is a located OSCDecodeError.

/// Reads one OSC packet from `bytes[start..<end]`. Never traps: every read is bounds checked.
struct OSCReader {
    let bytes: [UInt8]
    var offset: Int
    let end: Int

    init(bytes: [UInt8], start: Int, end: Int) {
        self.bytes = bytes; self.offset = start; self.end = end
    }

    var remaining: Int { end - offset }

    mutating func readPacket(depth: Int) throws(OSCDecodeError) -> OSCPacket {
        let size = end - offset
        guard size > 0 else { throw OSCDecodeError(.empty, at: offset) }
        guard size % 4 == 0 else { throw OSCDecodeError(.sizeNotMultipleOf4(size), at: offset) }
        if bytes[offset] == UInt8(ascii: "#") {
            return .bundle(try readBundle(depth: depth))
        }
        return .message(try readMessage())
    }

    private static let bundleTag: [UInt8] = Array("#bundle".utf8) + [0]

    mutating func readBundle(depth: Int) throws(OSCDecodeError) -> OSCBundle {
        guard depth < OSCPacket.maxNesting else { throw OSCDecodeError(.nestingTooDeep, at: offset) }
        let tagAt = offset
        guard remaining >= 16 else { throw OSCDecodeError(.truncated(needed: 16, available: remaining), at: offset) }
        guard bytes[offset..<offset + 8].elementsEqual(Self.bundleTag) else {
            throw OSCDecodeError(.badAddress(String(decoding: bytes[tagAt..<tagAt + 8].prefix { $0 != 0 }, as: UTF8.self)), at: tagAt)
        }
        offset += 8
        let tag = OSCTimeTag(raw: try read64())
        var elements: [OSCPacket] = []
        while offset < end {
            let sizeAt = offset
            let size = Int32(bitPattern: try read32())
            guard size > 0, size % 4 == 0, Int(size) <= remaining else {
                throw OSCDecodeError(.badBundleElementSize(size), at: sizeAt)
            }
            var inner = OSCReader(bytes: bytes, start: offset, end: offset + Int(size))
            elements.append(try inner.readPacket(depth: depth + 1))
            offset += Int(size)
        }
        return OSCBundle(timeTag: tag, elements)
    }

    mutating func readMessage() throws(OSCDecodeError) -> OSCMessage {
        let addressAt = offset
        let address = try readString()
        guard address.first == "/" else { throw OSCDecodeError(.badAddress(address), at: addressAt) }
        // OSC 1.0 says the type tag string "should" be present; a bare address is an empty message.
        if offset == end { return OSCMessage(address) }
        guard bytes[offset] == UInt8(ascii: ",") else { throw OSCDecodeError(.missingTypeTags, at: offset) }
        let tagsAt = offset
        let tags = try readStringBytes().dropFirst()
        var args: [OSCArgument] = []
        args.reserveCapacity(tags.count)
        for (i, t) in tags.enumerated() {
            let tagOffset = tagsAt + 1 + i
            switch t {
            case UInt8(ascii: "i"): args.append(.int32(Int32(bitPattern: try read32())))
            case UInt8(ascii: "f"): args.append(.float32(Float(bitPattern: try read32())))
            case UInt8(ascii: "s"): args.append(.string(try readString()))
            case UInt8(ascii: "S"): args.append(.symbol(try readString()))
            case UInt8(ascii: "b"): args.append(.blob(try readBlob()))
            case UInt8(ascii: "t"): args.append(.timeTag(OSCTimeTag(raw: try read64())))
            case UInt8(ascii: "h"): args.append(.int64(Int64(bitPattern: try read64())))
            case UInt8(ascii: "d"): args.append(.double(Double(bitPattern: try read64())))
            case UInt8(ascii: "c"): args.append(.char(UInt8(truncatingIfNeeded: try read32())))
            case UInt8(ascii: "r"): args.append(.rgba(try read32()))
            case UInt8(ascii: "m"): args.append(.midi(try read32()))
            case UInt8(ascii: "T"): args.append(.bool(true))
            case UInt8(ascii: "F"): args.append(.bool(false))
            case UInt8(ascii: "N"): args.append(.null)
            case UInt8(ascii: "I"): args.append(.impulse)
            case UInt8(ascii: "["), UInt8(ascii: "]"): throw OSCDecodeError(.unsupportedArray, at: tagOffset)
            default: throw OSCDecodeError(.unknownTypeTag(Character(Unicode.Scalar(t))), at: tagOffset)
            }
        }
        guard offset == end else { throw OSCDecodeError(.trailingBytes(end - offset), at: offset) }
        return OSCMessage(address, args)
    }

    mutating func read32() throws(OSCDecodeError) -> UInt32 {
        guard remaining >= 4 else { throw OSCDecodeError(.truncated(needed: 4, available: remaining), at: offset) }
        let v = UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
            | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
        offset += 4
        return v
    }

    mutating func read64() throws(OSCDecodeError) -> UInt64 {
        let hi = try read32()
        return UInt64(hi) << 32 | UInt64(try read32())
    }

    mutating func readString() throws(OSCDecodeError) -> String {
        let at = offset
        let raw = try readStringBytes()
        guard let s = String(validating: raw, as: UTF8.self) else { throw OSCDecodeError(.invalidUTF8, at: at) }
        return s
    }

    /// The bytes of a NUL-terminated, zero-padded string; leaves `offset` on the next word.
    mutating func readStringBytes() throws(OSCDecodeError) -> ArraySlice<UInt8> {
        let start = offset
        guard let nul = bytes[start..<end].firstIndex(of: 0) else {
            throw OSCDecodeError(.unterminatedString, at: start)
        }
        let next = (nul + 4) & ~3
        guard next <= end else { throw OSCDecodeError(.truncated(needed: next - start, available: end - start), at: start) }
        guard bytes[nul..<next].allSatisfy({ $0 == 0 }) else { throw OSCDecodeError(.nonzeroPadding, at: nul) }
        offset = next
        return bytes[start..<nul]
    }

    mutating func readBlob() throws(OSCDecodeError) -> [UInt8] {
        let sizeAt = offset
        let size = Int32(bitPattern: try read32())
        guard size >= 0 else { throw OSCDecodeError(.truncated(needed: Int(size), available: remaining), at: sizeAt) }
        let padded = (Int(size) + 3) & ~3
        guard padded <= remaining else { throw OSCDecodeError(.truncated(needed: padded, available: remaining), at: offset) }
        let data = Array(bytes[offset..<offset + Int(size)])
        guard bytes[offset + Int(size)..<offset + padded].allSatisfy({ $0 == 0 }) else {
            throw OSCDecodeError(.nonzeroPadding, at: offset + Int(size))
        }
        offset += padded
        return data
    }
}
