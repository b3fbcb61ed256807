// A tiny seeded generator so the property and fuzz tests are reproducible.

public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Mutations shared by the fuzz tests: flip, insert, delete, truncate, splice random bytes.
public enum Mutator {
    public static func mutate(_ input: [UInt8], using g: inout SplitMix64) -> [UInt8] {
        var b = input
        let rounds = Int.random(in: 1...4, using: &g)
        for _ in 0..<rounds {
            switch Int.random(in: 0..<6, using: &g) {
            case 0 where !b.isEmpty: b[Int.random(in: 0..<b.count, using: &g)] ^= UInt8(1 << Int.random(in: 0..<8, using: &g))
            case 1: b.insert(UInt8.random(in: 0...255, using: &g), at: Int.random(in: 0...b.count, using: &g))
            case 2 where !b.isEmpty: b.remove(at: Int.random(in: 0..<b.count, using: &g))
            case 3 where !b.isEmpty: b.removeLast(Int.random(in: 0...b.count, using: &g))
            case 4 where !b.isEmpty: b[Int.random(in: 0..<b.count, using: &g)] = UInt8.random(in: 0...255, using: &g)
            default:
                let interesting: [UInt8] = [0, 0xff, 0x7f, 0x80, UInt8(ascii: ","), UInt8(ascii: "#"), UInt8(ascii: "-"), UInt8(ascii: "\n"), UInt8(ascii: " ")]
                b.insert(interesting.randomElement(using: &g)!, at: Int.random(in: 0...b.count, using: &g))
            }
        }
        return b
    }
}
