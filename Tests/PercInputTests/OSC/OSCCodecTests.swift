// OSC 1.0 codec: byte-exact encoding, round trips of every type, nested bundles, located errors.
import Testing
@testable import PercInput
import PercTestSupport

@Suite struct OSCCodecTests {
    @Test func encodesTheSpecExampleByteForByte() {
        // OSC 1.0 spec example: "/oscillator/4/frequency" ,f 440.0
        let bytes = OSCPacket.message(OSCMessage("/oscillator/4/frequency", [.float32(440)])).encoded()
        let expected: [UInt8] = Array("/oscillator/4/frequency".utf8) + [0] + [UInt8(ascii: ","), UInt8(ascii: "f"), 0, 0]
            + [0x43, 0xdc, 0x00, 0x00]
        #expect(bytes == expected)
        #expect(bytes.count % 4 == 0)
    }

    @Test func roundTripsEveryType() throws {
        let msg = OSCMessage("/all", [
            .int32(-7), .float32(0.25), .string("héllo"), .blob([1, 2, 3, 4, 5]), .timeTag(OSCTimeTag(raw: 0xDEAD_BEEF_0000_0001)),
            .int64(-1 << 40), .double(.pi), .symbol("sym"), .char(65), .rgba(0x1122_3344), .midi(0x0090_4040),
            .bool(true), .bool(false), .null, .impulse, .string(""), .blob([]),
        ])
        let packet = OSCPacket.message(msg)
        let bytes = packet.encoded()
        #expect(bytes.count % 4 == 0)
        #expect(try OSCPacket.decode(bytes) == packet)
        #expect(msg.typeTags == "ifsbthdScrmTFNIsb")
    }

    @Test func stringPaddingAddsOneToFourNuls() {
        for (s, size) in [("", 4), ("a", 4), ("abc", 4), ("abcd", 8), ("abcdefg", 8)] {
            var w = OSCWriter()
            w.writeString(s)
            #expect(w.bytes.count == size, "\(s)")
        }
    }

    @Test func roundTripsNestedBundles() throws {
        let inner = OSCBundle(timeTag: OSCTimeTag(unixSeconds: 1_700_000_000.5), [.message(OSCMessage("/b", [.int32(2)]))])
        let outer = OSCBundle(timeTag: .immediately, [
            .message(OSCMessage("/a", [.string("x")])), .bundle(inner), .message(OSCMessage("/c")),
        ])
        let bytes = OSCPacket.bundle(outer).encoded()
        let back = try OSCPacket.decode(bytes)
        #expect(back == .bundle(outer))
        #expect(back.messages.map(\.address) == ["/a", "/b", "/c"])
    }

    @Test func timeTagsConvertToAndFromUnixTime() {
        let t = OSCTimeTag(unixSeconds: 0)
        #expect(t.seconds == 2_208_988_800 && t.fraction == 0)
        let h = OSCTimeTag(unixSeconds: 1_700_000_000.25)
        #expect(h.fraction == 1 << 30)
        #expect(abs(h.unixSeconds - 1_700_000_000.25) < 1e-6)
        #expect(OSCTimeTag.immediately.raw == 1)
    }

    @Test func rejectsSizesThatAreNotWordAligned() {
        #expect(throws: OSCDecodeError(.sizeNotMultipleOf4(5), at: 0)) { try OSCPacket.decode(Array("/abc\0".utf8)) }
        #expect(throws: OSCDecodeError(.empty, at: 0)) { try OSCPacket.decode([]) }
    }

    @Test func locatesATruncatedArgument() {
        var bytes = OSCPacket.message(OSCMessage("/x", [.int32(1), .float32(2)])).encoded()
        bytes.removeLast(4)
        #expect(throws: OSCDecodeError(.truncated(needed: 4, available: 0), at: 12)) { try OSCPacket.decode(bytes) }
    }

    @Test func locatesAnUnknownTypeTag() {
        let bytes: [UInt8] = Array("/x\0\0,iq\0".utf8) + [0, 0, 0, 1]
        #expect(throws: OSCDecodeError(.unknownTypeTag("q"), at: 6)) { try OSCPacket.decode(bytes) }
    }

    @Test func rejectsBadAddressesAndBundleSizes() {
        #expect(throws: OSCDecodeError(.badAddress("x"), at: 0)) { try OSCPacket.decode(Array("x\0\0\0,\0\0\0".utf8)) }
        var b = OSCPacket.bundle(OSCBundle(timeTag: .immediately, [.message(OSCMessage("/a"))])).encoded()
        b[19] = 200 // element size beyond the packet
        #expect(throws: OSCDecodeError(.badBundleElementSize(200), at: 16)) { try OSCPacket.decode(b) }
    }

    @Test func rejectsNonzeroPaddingAndBadUTF8() {
        #expect(throws: OSCDecodeError(.nonzeroPadding, at: 2)) { try OSCPacket.decode(Array("/x\0a,\0\0\0".utf8)) }
        let bad: [UInt8] = [UInt8(ascii: "/"), 0xff, 0, 0]
        #expect(throws: OSCDecodeError(.invalidUTF8, at: 0)) { try OSCPacket.decode(bad) }
    }

    @Test func rejectsBundlesNestedTooDeep() {
        var p = OSCPacket.message(OSCMessage("/deep"))
        for _ in 0..<(OSCPacket.maxNesting + 1) { p = .bundle(OSCBundle(timeTag: .immediately, [p])) }
        #expect(throws: OSCDecodeError.self) { try OSCPacket.decode(p.encoded()) }
    }

    @Test func fuzzedPacketsNeverCrashAndValidOnesRoundTrip() {
        var g = SplitMix64(seed: 0x05C_F00D)
        let seeds: [[UInt8]] = [
            OSCPacket.message(OSCMessage("/tuio/2Dcur", [.string("set"), .int32(3), .float32(0.5), .float32(0.25), .float32(0), .float32(0), .float32(0)])).encoded(),
            OSCPacket.bundle(OSCBundle(timeTag: .immediately, [
                .message(OSCMessage("/tuio2/frm", [.int32(1), .timeTag(.immediately), .int32(0), .string("x")])),
                .bundle(OSCBundle(timeTag: .immediately, [.message(OSCMessage("/b", [.blob([1, 2, 3])]))])),
            ])).encoded(),
        ]
        var decoded = 0, rejected = 0
        let runs = 60_000
        for _ in 0..<runs {
            let input = Mutator.mutate(seeds.randomElement(using: &g)!, using: &g)
            do {
                let p = try OSCPacket.decode(input)
                decoded += 1
                // Whatever decodes must re-encode to bytes that decode to the same bytes (NaN-safe).
                #expect(try OSCPacket.decode(p.encoded()).encoded() == p.encoded())
            } catch {
                rejected += 1
                #expect(error.offset >= 0 && error.offset <= input.count)
            }
        }
        #expect(decoded + rejected == runs)
        #expect(rejected > 0)
    }
}
