// TUIO 1.1 2Dcur and 2.0 ptr decoding: alive sets, fseq ordering, late/duplicate frames, bad values.
import Testing
import MTKTangibles
@testable import PercInput
import PercTestSupport

@Suite struct TUIODecoderTests {
    static let surface = Vec2(1000, 500)

    static func cur(_ fseq: Int32, alive: [Int32], sets: [(Int32, Float, Float)], source: String? = nil) -> OSCPacket {
        var msgs: [OSCPacket] = []
        if let source { msgs.append(.message(OSCMessage("/tuio/2Dcur", [.string("source"), .string(source)]))) }
        msgs.append(.message(OSCMessage("/tuio/2Dcur", [.string("alive")] + alive.map { .int32($0) })))
        for (s, x, y) in sets {
            msgs.append(.message(OSCMessage("/tuio/2Dcur", [.string("set"), .int32(s), .float32(x), .float32(y), .float32(0), .float32(0), .float32(0)])))
        }
        msgs.append(.message(OSCMessage("/tuio/2Dcur", [.string("fseq"), .int32(fseq)])))
        return .bundle(OSCBundle(timeTag: .immediately, msgs))
    }

    func feed(_ d: inout TUIODecoder, _ p: OSCPacket, at t: Double = 1) -> [ContactUpdate] {
        var out: [ContactUpdate] = []
        d.feed(datagram: p.encoded(), sender: "10.0.0.2:5000", arrival: t, into: &out)
        return out
    }

    @Test func cursorsBeginMoveAndEndWithTheAliveSet() {
        var d = TUIODecoder(surfaceSize: Self.surface)
        let a = feed(&d, Self.cur(1, alive: [5, 6], sets: [(5, 0.5, 0.5), (6, 0.25, 1)]))
        #expect(a.map(\.phase) == [.begin, .begin] && a.map(\.contactID) == [5, 6])
        #expect(a[0].position == Vec2(500, 250) && a[1].position == Vec2(250, 500))
        #expect(a[0].origin == InputOrigin(kind: .tuio, device: "10.0.0.2:5000"))
        let b = feed(&d, Self.cur(2, alive: [5, 6], sets: [(5, 0.5, 0.5), (6, 0.5, 1)]), at: 2)
        #expect(b.map(\.phase) == [.move] && b[0].contactID == 6) // unchanged 5 is not repeated
        let c = feed(&d, Self.cur(3, alive: [6], sets: []), at: 3)
        #expect(c.map(\.phase) == [.end] && c[0].contactID == 5 && c[0].position == Vec2(500, 250) && c[0].time == 3)
    }

    @Test func lateAndDuplicateFramesAreDropped() {
        var d = TUIODecoder(surfaceSize: Self.surface)
        _ = feed(&d, Self.cur(10, alive: [1], sets: [(1, 0.1, 0.1)]))
        #expect(feed(&d, Self.cur(10, alive: [1], sets: [(1, 0.2, 0.1)])).isEmpty)
        #expect(feed(&d, Self.cur(9, alive: [], sets: [])).isEmpty)
        #expect(d.framesDropped == 2 && d.bad.count("duplicate TUIO frame") == 1 && d.bad.count("late TUIO frame") == 1)
        // A sender restart (a jump back by more than 100) is accepted.
        #expect(feed(&d, Self.cur(200, alive: [1], sets: [(1, 0.3, 0.1)])).count == 1)
        #expect(feed(&d, Self.cur(1, alive: [1], sets: [(1, 0.4, 0.1)])).count == 1)
        // fseq -1 (parts of a split frame) is accepted without ordering.
        #expect(feed(&d, Self.cur(-1, alive: [1], sets: [(1, 0.5, 0.1)])).count == 1)
    }

    @Test func sourcesAreKeptApart() {
        var d = TUIODecoder(surfaceSize: Self.surface)
        _ = feed(&d, Self.cur(1, alive: [1], sets: [(1, 0.1, 0.1)], source: "left@a"))
        let b = feed(&d, Self.cur(1, alive: [1], sets: [(1, 0.9, 0.1)], source: "right@b"))
        #expect(b.map(\.phase) == [.begin] && b[0].origin.device == "right@b")
    }

    @Test func badValuesAreCountedAndSkipped() {
        var d = TUIODecoder(surfaceSize: Self.surface)
        let out = feed(&d, Self.cur(1, alive: [1, 2, 3], sets: [(1, .nan, 0), (2, 1.5, 0), (3, 0.5, 0.5), (4, 0.5, 0.5)]))
        #expect(out.map(\.contactID) == [3])
        #expect(d.bad.count("TUIO position out of range") == 2)
        #expect(d.bad.count("TUIO set for a session not alive") == 1)
        var junk: [ContactUpdate] = []
        d.feed(datagram: [1, 2, 3], sender: "x:1", arrival: 0, into: &junk)
        #expect(d.bad.entries["malformed OSC"]?.firstLocation == "x:1 byte 0")
    }

    @Test func tuio2PointersCommitAtAlv() {
        var d = TUIODecoder(surfaceSize: Self.surface)
        func frame(_ id: Int32, _ ptrs: [(Int32, Float, Float)], alive: [Int32]) -> OSCPacket {
            var m: [OSCPacket] = [.message(OSCMessage("/tuio2/frm", [.int32(id), .timeTag(.immediately), .int32(1000 << 16 | 500), .string("table@host")]))]
            for (s, x, y) in ptrs {
                m.append(.message(OSCMessage("/tuio2/ptr", [.int32(s), .int32(0), .int32(0), .float32(x), .float32(y), .float32(0), .float32(0), .float32(0.01), .float32(1)])))
            }
            m.append(.message(OSCMessage("/tuio2/alv", alive.map { .int32($0) })))
            return .bundle(OSCBundle(timeTag: .immediately, m))
        }
        let a = feed(&d, frame(1, [(7, 0.1, 0.2)], alive: [7]))
        #expect(a.count == 1 && a[0].phase == .begin)
        #expect(abs(a[0].position.x - 100) < 1e-4 && abs(a[0].position.y - 100) < 1e-4)
        #expect(abs(a[0].major! - 20) < 1e-4) // radius 0.01 of the width → 20 mm diameter
        #expect(feed(&d, frame(1, [(7, 0.3, 0.2)], alive: [7])).isEmpty) // duplicate
        let c = feed(&d, frame(2, [], alive: []))
        #expect(c.map(\.phase) == [.end])
    }

    @Test func fuzzedTUIOPacketsNeverCrash() {
        var g = SplitMix64(seed: 0x7010)
        var d = TUIODecoder(surfaceSize: Self.surface)
        let seed = Self.cur(1, alive: [1, 2], sets: [(1, 0.1, 0.2), (2, 0.3, 0.4)]).encoded()
        var out: [ContactUpdate] = []
        for i in 0..<20_000 {
            d.feed(datagram: Mutator.mutate(seed, using: &g), sender: "f:\(i % 3)", arrival: Double(i), into: &out)
        }
        #expect(out.allSatisfy { (0...1000).contains($0.position.x) && (0...500).contains($0.position.y) })
        #expect(d.bad.total > 0)
    }
}
