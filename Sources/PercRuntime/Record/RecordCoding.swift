// JSON Lines encoding of recordings: sorted keys, shortest round-trip doubles (bit-exact replay).
import Foundation

enum RecordCoding {
    static func line<T: Encodable>(_ value: T) throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var d = try e.encode(value)
        d.append(UInt8(ascii: "\n"))
        return d
    }
}
