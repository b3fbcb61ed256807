// Shared helpers of the simulator tests: quiet models and small statistics.

@testable import MTKTangibles
@testable import MTKSimulator

enum SimTest {
    /// The default model with one setting changed.
    static func model(_ change: (inout HardwareModel) -> Void) -> HardwareModel {
        var m = HardwareModel()
        change(&m)
        return m
    }

    static func mean(_ xs: [Double]) -> Double { xs.reduce(0, +) / Double(max(xs.count, 1)) }

    static func standardDeviation(_ xs: [Double]) -> Double {
        let m = mean(xs)
        return (xs.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(max(xs.count - 1, 1))).squareRoot()
    }

    /// An angle (radians) at least 10° away from every scanline angle of the default model.
    static func offScanlineAngle(_ rng: inout SimRandom) -> Double {
        let quadrant = Double(rng.int(0...3)) * 90
        return (quadrant + rng.uniform(10, 80)) * Double.pi / 180
    }
}
