// Why an OSC packet was rejected, and where (byte offset within the datagram).

/// A located OSC decoding error.
public struct OSCDecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        case empty
        case sizeNotMultipleOf4(Int)
        case truncated(needed: Int, available: Int)
        case unterminatedString
        case nonzeroPadding
        case invalidUTF8
        case badAddress(String)
        case missingTypeTags
        case unknownTypeTag(Character)
        case unsupportedArray
        case badBundleElementSize(Int32)
        case nestingTooDeep
        case trailingBytes(Int)
    }

    public var reason: Reason
    /// Byte offset within the packet where the problem was found.
    public var offset: Int

    public init(_ reason: Reason, at offset: Int) { self.reason = reason; self.offset = offset }

    public var description: String {
        let what: String
        switch reason {
        case .empty: what = "empty packet"
        case .sizeNotMultipleOf4(let n): what = "size \(n) is not a multiple of 4"
        case .truncated(let need, let have): what = "truncated: needs \(need) bytes, \(have) left"
        case .unterminatedString: what = "string without NUL terminator"
        case .nonzeroPadding: what = "padding bytes are not zero"
        case .invalidUTF8: what = "string is not valid UTF-8"
        case .badAddress(let a): what = "address \"\(a)\" does not start with '/'"
        case .missingTypeTags: what = "arguments without a type tag string"
        case .unknownTypeTag(let c): what = "unknown type tag '\(c)'"
        case .unsupportedArray: what = "OSC arrays ([ ]) are not supported"
        case .badBundleElementSize(let n): what = "bundle element size \(n) is invalid"
        case .nestingTooDeep: what = "bundles nested deeper than \(OSCPacket.maxNesting)"
        case .trailingBytes(let n): what = "\(n) bytes after the last argument"
        }
        return "OSC: \(what) at byte \(offset)"
    }
}
