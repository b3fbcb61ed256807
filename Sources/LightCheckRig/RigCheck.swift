// One verification need posed in a light-check rig, with the truth to score its outcome.
import LightCheck
import MTKTangibles
import MTKSimulator

/// A need the rig poses to a planner each frame, with hypotheses fixed to the tangible's
/// true pose (they move with it, as traces would), and which of them is right.
public struct RigCheck: Hashable, Sendable {
    public var tangible: TangibleID
    public var request: UInt64
    public var kind: VerificationNeed.Kind
    /// Each hypothesis's pose in the true pose's frame (applied to the true pose each frame).
    public var relativePoses: [Pose]
    /// The index of the right hypothesis, or nil when none is.
    public var trueIndex: Int?
    /// When the rig starts posing the need.
    public var from: Seconds
    /// Each hypothesis's traces (as the engine names the touches it stands on); none when
    /// shorter than `relativePoses`.
    public var hypothesisTraces: [[UInt64]]
    /// Poses of the tangible's other candidates, not offered (in the true pose's frame): the
    /// need names their sensor positions (`VerificationNeed.otherPlaces`).
    public var otherRelativePoses: [Pose]

    public init(tangible: TangibleID, request: UInt64, kind: VerificationNeed.Kind = .identify,
                relativePoses: [Pose], trueIndex: Int?, from: Seconds, hypothesisTraces: [[UInt64]] = [],
                otherRelativePoses: [Pose] = []) {
        self.tangible = tangible; self.request = request; self.kind = kind
        self.relativePoses = relativePoses; self.trueIndex = trueIndex; self.from = from
        self.hypothesisTraces = hypothesisTraces; self.otherRelativePoses = otherRelativePoses
    }

    /// How an outcome scores against the truth.
    public enum Score: String, Hashable, Sendable, Codable {
        case confirmedRight, confirmedWrong, rejectedRight, rejectedWrong, inconclusive, undecided
    }

    public func score(_ result: VerificationOutcome.Result?) -> Score {
        switch result {
        case .confirmed(let h)?: return h == trueIndex ? .confirmedRight : .confirmedWrong
        case .rejected?: return trueIndex == nil ? .rejectedRight : .rejectedWrong
        case .inconclusive?: return .inconclusive
        case nil: return .undecided
        }
    }

    /// The poses a two-touch tuple allows (thesis 3.3.2, Fig. 3.13/3.14): every ordered pair
    /// of markers as far apart as markers `i` and `j` is placed on them, rigidly. For the
    /// standard PERC a hypotenuse gives 2 poses and a leg 4. Relative to the true pose;
    /// the true one is first.
    public static func twoTouchPoses(markers: [Vec2], i: Int, j: Int, tolerance: Double = 0.5) -> [Pose] {
        let p = markers[i], q = markers[j]
        let d = p.distance(to: q)
        var poses = [Pose(position: .zero, angle: 0)]
        for a in markers.indices {
            for b in markers.indices where a != b && (a, b) != (i, j) {
                guard abs(markers[a].distance(to: markers[b]) - d) <= tolerance else { continue }
                // Rotation taking (b - a) onto (q - p), then translation taking a onto p.
                let from = markers[b] - markers[a], to = q - p
                let angle = atan2(to.y, to.x) - atan2(from.y, from.x)
                let position = p - markers[a].rotated(by: angle)
                poses.append(Pose(position: position, angle: angle))
            }
        }
        return poses
    }
}

extension RigCheck {
    /// `k` candidate poses (relative to the true one) as an engine would state them, in a
    /// seeded random order: 2 from a hypotenuse tuple, 4 from a leg tuple, 8 from a leg tuple
    /// plus a finger pair at leg distance 10–18 mm away; other counts add poses displaced by
    /// 8–20 mm. Returns the poses and the index of the true one.
    public static func candidatePoses(k: Int, markers: [Vec2], rng: inout SimRandom) -> (poses: [Pose], trueIndex: Int) {
        var poses: [Pose]
        func displaced(_ p: Pose, by d: Pose) -> Pose {
            Pose(position: d.position + p.position.rotated(by: d.angle), angle: p.angle + d.angle)
        }
        func randomShift(_ lo: Double, _ hi: Double) -> Pose {
            let a = rng.uniform(0, 2 * Double.pi), r = rng.uniform(lo, hi)
            return Pose(position: Vec2(r * cos(a), r * sin(a)), angle: rng.uniform(-0.6, 0.6))
        }
        let hyp = markers.count >= 3 ? longestPair(markers) : (0, 1)
        let leg = markers.count >= 3 ? shortestPair(markers) : (0, 1)
        switch k {
        case 2: poses = twoTouchPoses(markers: markers, i: hyp.0, j: hyp.1)
        case 4: poses = twoTouchPoses(markers: markers, i: leg.0, j: leg.1)
        case 8:
            let base = twoTouchPoses(markers: markers, i: leg.0, j: leg.1)
            let shift = randomShift(10, 18)
            poses = base + base.map { displaced($0, by: shift) }
        default: poses = [Pose(position: .zero, angle: 0)]
        }
        while poses.count < k { poses.append(randomShift(8, 20)) }
        poses = Array(poses.prefix(max(1, k)))
        // Fisher–Yates with the seeded generator: the true pose (index 0) lands anywhere.
        var order = Array(poses.indices)
        for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, rng.int(0...i)) }
        return (order.map { poses[$0] }, order.firstIndex(of: 0)!)
    }

    private static func pairs(_ m: [Vec2]) -> [(Int, Int)] {
        m.indices.flatMap { i in m.indices.filter { $0 > i }.map { (i, $0) } }
    }
    private static func longestPair(_ m: [Vec2]) -> (Int, Int) {
        pairs(m).max { m[$0.0].distance(to: m[$0.1]) < m[$1.0].distance(to: m[$1.1]) }!
    }
    private static func shortestPair(_ m: [Vec2]) -> (Int, Int) {
        pairs(m).min { m[$0.0].distance(to: m[$0.1]) < m[$1.0].distance(to: m[$1.1]) }!
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
