// Serialises OSC packets into big-endian, 4-byte aligned bytes.

/// Appends OSC packets to a byte array. Used through `OSCPacket.encoded()`.
struct OSCWriter {
    var bytes: [UInt8] = []

    mutating func write(_ packet: OSCPacket) {
        switch packet {
        case .message(let m): write(m)
        case .bundle(let b): write(b)
        }
    }

    mutating func write(_ m: OSCMessage) {
        writeString(m.address)
        var tags: [UInt8] = [UInt8(ascii: ",")]
        tags.append(contentsOf: m.arguments.map(\.typeTag))
        writeStringBytes(tags)
        for a in m.arguments { write(a) }
    }

    mutating func write(_ b: OSCBundle) {
        writeBundleHead(b.timeTag)
        for e in b.elements {
            let sizeAt = bytes.count
            write32(0)
            write(e)
            let size = UInt32(bytes.count - sizeAt - 4)
            withUnsafeBytes(of: size.bigEndian) { raw in
                for i in 0..<4 { bytes[sizeAt + i] = raw[i] }
            }
        }
    }

    mutating func write(_ a: OSCArgument) {
        switch a {
        case .int32(let v): write32(UInt32(bitPattern: v))
        case .float32(let v): write32(v.bitPattern)
        case .string(let s), .symbol(let s): writeString(s)
        case .blob(let b):
            write32(UInt32(b.count))
            bytes.append(contentsOf: b)
            pad()
        case .timeTag(let t): write64(t.raw)
        case .int64(let v): write64(UInt64(bitPattern: v))
        case .double(let v): write64(v.bitPattern)
        case .char(let c): write32(UInt32(c))
        case .rgba(let v), .midi(let v): write32(v)
        case .bool, .null, .impulse: break
        }
    }

    /// "#bundle" and the time tag; the elements follow, each as its size and its bytes.
    mutating func writeBundleHead(_ timeTag: OSCTimeTag) {
        writeString("#bundle")
        write64(timeTag.raw)
    }

    /// One bundle element already encoded (a message's or a bundle's bytes).
    mutating func writeElement(_ encoded: [UInt8]) {
        write32(UInt32(encoded.count))
        bytes.append(contentsOf: encoded)
    }

    mutating func write32(_ v: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 24)); bytes.append(UInt8(truncatingIfNeeded: v >> 16))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8)); bytes.append(UInt8(truncatingIfNeeded: v))
    }

    mutating func write64(_ v: UInt64) {
        write32(UInt32(truncatingIfNeeded: v >> 32)); write32(UInt32(truncatingIfNeeded: v))
    }

    /// OSC strings cannot contain NUL: a string with one is cut there (as C receivers would).
    mutating func writeString(_ s: String) {
        var utf8 = Array(s.utf8)
        if let nul = utf8.firstIndex(of: 0) { utf8.removeSubrange(nul...) }
        writeStringBytes(utf8)
    }

    private mutating func writeStringBytes(_ b: [UInt8]) {
        bytes.append(contentsOf: b)
        bytes.append(0)
        pad()
    }

    private mutating func pad() {
        while bytes.count % 4 != 0 { bytes.append(0) }
    }
}
