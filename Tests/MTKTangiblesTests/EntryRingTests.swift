// The chunked entry storage of a trace behaves like an array with drop-oldest.

import Testing
@testable import MTKTangibles

@Suite("EntryRing")
struct EntryRingTests {
    @Test("appends, drops of the oldest and writes match a plain array across chunk borders")
    func matchesAnArray() {
        var ring = EntryRing<Int>()
        var model: [Int] = []
        var next = 0
        // Drops of 1, 63, 64, 65 and 300 elements land on and across chunk borders.
        for drop in [0, 1, 63, 64, 65, 300, 0, 7] {
            for _ in 0..<150 { ring.append(next); model.append(next); next += 1 }
            ring.removeFirst(drop); model.removeFirst(min(drop, model.count))
            #expect(ring.count == model.count)
            #expect(Array(ring.elements) == model)
            #expect(ring.last == model.last)
        }
        ring[5] = -1; model[5] = -1
        ring[ring.count - 1] = -2; model[model.count - 1] = -2
        #expect(Array(ring.elements) == model)
        ring.removeFirst(ring.count)
        #expect(ring.isEmpty && ring.last == nil)
        ring.append(42)
        #expect(Array(ring.elements) == [42])
    }

    @Test("a copy is independent of the original (value semantics)")
    func copiesAreValues() {
        var a = EntryRing<Int>((0..<100).map { $0 })
        var b = a
        b[10] = -10
        b.append(100)
        a.removeFirst(70)
        #expect(Array(a.elements) == Array(70..<100))
        #expect(b.count == 101 && b[10] == -10 && b[11] == 11 && b[100] == 100)
    }
}
