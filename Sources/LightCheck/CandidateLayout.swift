// Where a check's candidate patches go: clusters, patch radius, and which may be drawn.
import MTKTangibles

/// Candidates too close to tell apart form one cluster; a cluster is drawable when its
/// patch lies where the footprint policy allows.
struct CandidateLayout: Hashable, Sendable {
    struct Cluster: Hashable, Sendable {
        /// Hypothesis ids, ascending.
        var ids: [Int]
        /// Patch centre on the surface (mean of the members, moved by the prediction).
        var center: Vec2
        /// Inside the footprint of every live hypothesis.
        var covered: Bool
        /// Inside the footprint of each member's own hypothesis.
        var ownCovered: Bool
    }

    var clusters: [Cluster]
    var radius: Double

    /// - Parameters:
    ///   - hypotheses: the live ones (weight > 0), in the engine's order.
    ///   - shift: added to every position and pose (prediction of a moving tangible).
    ///   - baseRadius: the largest radius wanted (probe or stationary patch size).
    init(hypotheses: [Hypothesis], footprint: Footprint, shift: Vec2, baseRadius: Double, config: LightCheckConfig) {
        let sorted = hypotheses.sorted { $0.id < $1.id }
        let minSeparation = 2 * config.minPatchRadius + config.patchGap
        // Single-link clustering on the (few) candidates: union-find by index.
        var parent = Array(sorted.indices)
        func root(_ i: Int) -> Int { var i = i; while parent[i] != i { i = parent[i] }; return i }
        for i in sorted.indices {
            for j in sorted.indices where j > i && sorted[i].sensorPosition.distance(to: sorted[j].sensorPosition) < minSeparation {
                let a = root(i), b = root(j)
                if a != b { parent[max(a, b)] = min(a, b) }
            }
        }
        var groups: [Int: [Int]] = [:]
        for i in sorted.indices { groups[root(i), default: []].append(i) }
        let groupRoots = groups.keys.sorted()
        var centers: [Vec2] = []
        var members: [[Int]] = []
        for r in groupRoots {
            let idx = groups[r]!
            members.append(idx)
            let c = idx.map { sorted[$0].sensorPosition }.reduce(Vec2.zero, +) / Double(idx.count)
            centers.append(c + shift)
        }
        // Radius: as large as wanted, but neighbouring patches must not touch.
        var radius = baseRadius
        for i in centers.indices {
            for j in centers.indices where j > i {
                radius = min(radius, (centers[i].distance(to: centers[j]) - config.patchGap) / 2)
            }
        }
        radius = max(radius, min(config.minPatchRadius, baseRadius))
        self.radius = radius
        let poses = sorted.map { Pose(position: $0.pose.position + shift, angle: $0.pose.angle) }
        self.clusters = zip(members, centers).map { idx, c in
            let covered = poses.allSatisfy { footprint.contains($0.local(c), margin: radius) }
            let own = idx.allSatisfy { footprint.contains(poses[$0].local(c), margin: radius) }
            return Cluster(ids: idx.map { sorted[$0].id }, center: c, covered: covered, ownCovered: own)
        }
    }

    /// Cluster indices the policy lets this round draw. `preferCovered` falls back to the
    /// own-footprint rule only when nothing covered is left that could still decide.
    func drawable(policy: LightCheckConfig.FootprintPolicy) -> [Int] {
        let covered = clusters.indices.filter { clusters[$0].covered }
        switch policy {
        case .strict:
            return covered
        case .anywhere:
            return Array(clusters.indices)
        case .preferCovered:
            // With at most one covered cluster left, no covered-only plan can tell the rest
            // apart, so draw the others inside their own hypotheses' footprints.
            if covered.count >= 2 || covered.count == clusters.count { return covered }
            return clusters.indices.filter { clusters[$0].covered || clusters[$0].ownCovered }
        }
    }
}
