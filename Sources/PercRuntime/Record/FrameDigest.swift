// A stable digest of frames (FNV-1a 64 over their canonical JSON), to compare live and replayed runs.
import Foundation
import MTKTangibles

enum FrameDigest {
    /// Hex FNV-1a 64 of the sorted-key JSON of `values`; equal iff the values encode identically.
    public static func of<T: Encodable>(_ values: T) -> String {
        guard let data = try? RecordCoding.line(values) else { return "unencodable" }
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in data { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
