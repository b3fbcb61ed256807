// percbridge's own TUIO output read back by the TUIO input: a frame split over several bundles.
import Testing
import MTKTangibles
@testable import PercRuntime
import PercInput

@Suite struct TUIOSplitFrameTests {
    static let surface = Vec2(1000, 500)

    @Test func aFrameSplitOverSeveralBundlesIsAcceptedWhole() {
        // percbridge's own TUIO output splits a large frame into bundles with the same fseq,
        // each with the full alive set; all 40 fingers must arrive, and a real duplicate of a
        // part must still be dropped.
        var e = TUIOEncoder(source: "s", surface: Vec2(1000, 500), maxDatagramBytes: 512)
        var pointers: [PointerSnapshot] = []
        for i in 0..<40 {
            let x = 10.0 + 20.0 * Double(i)
            pointers.append(PointerSnapshot(id: Int64(100 + i), position: Vec2(x, 250), origin: "test"))
        }
        let parts = e.encode(SurfaceSnapshot(frame: 1, time: 0, tangibles: [], pointers: pointers), unixTime: 0).v11
        #expect(parts.count > 2)
        var d = TUIODecoder(surfaceSize: Self.surface)
        var out: [ContactUpdate] = []
        for part in parts { d.feed(datagram: part, sender: "10.0.0.2:5000", arrival: 1, into: &out) }
        let ids = Set(out.map(\.contactID))
        #expect(out.count == 40 && ids.count == 40)
        #expect(out.allSatisfy { $0.phase == .begin })
        #expect(d.framesDropped == 0)
        var again: [ContactUpdate] = []
        d.feed(datagram: parts[1], sender: "10.0.0.2:5000", arrival: 1, into: &again)
        #expect(again.isEmpty && d.bad.count("duplicate TUIO frame") == 1)
    }
}
