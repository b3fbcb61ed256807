// The simulator's only source of randomness: xoshiro256** seeded through SplitMix64.
import MTKTangibles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A seeded pseudo-random generator (xoshiro256**, state expanded from the seed with
/// SplitMix64). Every draw is made from 64-bit integer arithmetic, so a seed gives the same
/// sequence on every run and machine; the library's `random(in:)` helpers are not used
/// because their algorithms are not promised to stay the same across Swift versions.
public struct SimRandom: RandomNumberGenerator, Sendable, Hashable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    public init(seed: UInt64) {
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix(); s1 = splitMix(); s2 = splitMix(); s3 = splitMix()
    }

    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// A new generator whose sequence does not overlap this one's in practice (for sub-streams).
    public mutating func fork() -> SimRandom { SimRandom(seed: next()) }

    /// Uniform in [0, 1), 53 bits.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Uniform in [a, b] (b may equal a).
    public mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * unit() }

    /// Uniform integer in the closed range.
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % span)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { p > 0 && unit() < p }

    /// Normal with mean 0 and standard deviation `sigma` (Box–Muller).
    public mutating func gaussian(_ sigma: Double) -> Double {
        guard sigma > 0 else { return 0 }
        let u1 = max(unit(), 0x1p-60), u2 = unit()
        return sigma * (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// Exponential waiting time for events at `rate` per second; infinite for rate 0.
    public mutating func exponential(rate: Double) -> Double {
        guard rate > 0 else { return .infinity }
        return -log(1 - unit()) / rate
    }
}
