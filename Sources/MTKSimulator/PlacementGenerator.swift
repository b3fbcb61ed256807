// Seeded random placements (one per case, with distractors) for the recognition accuracy benchmark.
import MTKTangibles

/// Makes random placement cases from a seed: each case is a short scenario in which PERC 1
/// is set down at `placedAt` at a random pose, under the full hardware model, with random
/// distractors (fingers near and far, sometimes a finger triple that fits the PERC,
/// sometimes another PERC already on the surface). Score a recogniser on each case with
/// `ScenarioRunner(case.scenario)` and its `world.truth`.
public struct PlacementGenerator: Sendable {
    public struct Settings: Hashable, Sendable, Codable {
        public var surface = Vec2(800, 500)
        /// Share of cases whose PERC is the standard one; the rest are scalene, obtuse or near-equilateral.
        public var standardShare = 0.5
        /// Fingers on the surface around the placement: uniform count in 0...maxFingers.
        public var maxFingers = 3
        /// Share of those fingers put down 30–90 mm from the PERC (the rest anywhere).
        public var nearFingerShare = 0.5
        /// Share of fingers that move while the PERC is placed.
        public var movingFingerShare = 0.3
        /// Chance of three fingers forming the PERC's pattern nearby, inside its time window.
        public var fingerTripleProbability = 0.05
        /// Fingers touch the glass only: a finger's place and path keep to the surface and off
        /// every PERC's footprint (up to its rim). Off: fingers may land or slide under a PERC
        /// or off the surface, which no real finger does (the cases before 2026-11-28; the
        /// random draws are the same either way, so the same seed gives the same PERCs).
        public var fingersOnGlassOnly = true
        /// Chance of a second PERC (standard) being set down just before.
        public var otherPercProbability = 0.3
        /// When the PERC is set down, and how long the case runs after that.
        public var placedAt: Seconds = 0.5
        public var hold: Seconds = 2
        /// Hardware settings changed from the defaults (none: the full model of HARDWARE-MODEL.md).
        public var hardware = HardwareOverrides()

        public init() {}
    }

    /// One placement to recognise.
    public struct Case: Hashable, Sendable {
        public var index: Int
        public var scenario: Scenario
        /// The PERC whose placement is scored (always 1) and where it really is.
        public var tangible: TangibleID
        public var pose: Pose
        public var placedAt: Seconds
    }

    public let settings: Settings
    private var rng: SimRandom
    private var count = 0

    public init(seed: UInt64, settings: Settings = Settings()) {
        self.settings = settings
        self.rng = SimRandom(seed: seed)
    }

    /// `n` cases from `seed`.
    public static func cases(_ n: Int, seed: UInt64, settings: Settings = Settings()) -> [Case] {
        var g = PlacementGenerator(seed: seed, settings: settings)
        return (0..<n).map { _ in g.next() }
    }

    public mutating func next() -> Case {
        let s = settings
        let margin = 60.0
        func point() -> Vec2 { Vec2(rng.uniform(margin, s.surface.x - margin), rng.uniform(margin, s.surface.y - margin)) }
        let shapes = [BuiltInScenarios.scaleneMarkers, BuiltInScenarios.obtuseMarkers, BuiltInScenarios.nearEquilateralMarkers]
        let markers = rng.chance(s.standardShare) ? BuiltInScenarios.standardMarkers : shapes[rng.int(0...2)]
        let pose = Pose(position: point(), angle: rng.uniform(0, 2 * Double.pi))
        var tangibles = [ScenarioTangible(id: 1, name: "PERC", markers: markers)]
        var steps: [ScenarioStep] = []
        let t0 = s.placedAt
        // Where each PERC lies and how far its footprint reaches (fingers keep out).
        var bodies = [(centre: pose.position, radius: tangibles[0].definition.footprint.extent)]
        if rng.chance(s.otherPercProbability) {
            var other = point()
            while other.distance(to: pose.position) < 110 { other = point() }
            tangibles.append(ScenarioTangible(id: 2, name: "other PERC"))
            bodies.append((other, tangibles[1].definition.footprint.extent))
            steps.append(ScenarioStep(at: max(0, t0 - rng.uniform(0.05, 0.45)),
                                      .place(.init(tangible: 2, position: ScenarioPoint(other), angle: rng.uniform(0, 360)))))
        }
        steps.append(ScenarioStep(at: t0, .place(.init(tangible: 1, position: ScenarioPoint(pose.position), angle: pose.angle * 180 / Double.pi))))
        // Fingers touch the glass, not the PERCs' bodies, and only where there is glass: a
        // finger's place and path keep to the surface and off every PERC's footprint (it may
        // rest against a rim). Each case still takes the same random draws.
        let field = Self.FingerField(surface: s.surface, bodies: bodies, active: s.fingersOnGlassOnly)
        for f in 0..<rng.int(0...max(0, s.maxFingers)) {
            var p = point()
            if rng.chance(s.nearFingerShare) {
                p = pose.position + Vec2(rng.uniform(30, 90), 0).rotated(by: rng.uniform(0, 2 * Double.pi))
            }
            p = field.clear(p)
            let down = max(0, t0 + rng.uniform(-0.5, 0.5))
            steps.append(ScenarioStep(at: down, .fingerDown(.init(finger: 100 + f, position: ScenarioPoint(p)))))
            if rng.chance(s.movingFingerShare) {
                let to = field.path(from: p, to: p + Vec2(rng.uniform(20, 120), 0).rotated(by: rng.uniform(0, 2 * Double.pi)))
                steps.append(ScenarioStep(at: down + 0.01, .fingerMove(.init(finger: 100 + f, to: ScenarioPoint(to), duration: rng.uniform(0.3, 1.5)))))
            }
        }
        if rng.chance(s.fingerTripleProbability) {
            let offset = Vec2(rng.uniform(90, 160), 0).rotated(by: rng.uniform(0, 2 * Double.pi))
            // The triple's fingers lie within 30 mm of its centre: on the glass, off the PERCs.
            let at = [pose.position + offset, pose.position - offset].first { field.isClear($0, margin: 30) } ?? pose.position + offset
            steps.append(ScenarioStep(at: t0 + rng.uniform(-0.1, 0.2), .fingersTriple(.init(
                fingers: [200, 201, 202], like: 1, position: ScenarioPoint(at), angle: rng.uniform(0, 360)))))
        }
        let scenario = Scenario(
            name: "placement-\(count)", seed: rng.next(), surface: ScenarioPoint(s.surface),
            duration: t0 + s.hold, hardware: s.hardware, tangibles: tangibles,
            steps: steps.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element))
        defer { count += 1 }
        return Case(index: count, scenario: scenario, tangible: 1, pose: pose, placedAt: t0)
    }

    /// Where a finger can touch: on the surface, off the PERCs' round footprints.
    struct FingerField {
        var surface: Vec2
        var bodies: [(centre: Vec2, radius: Double)]
        /// Off: every place and path is left as drawn.
        var active = true
        /// How far inside the surface's edge a finger's centre stays.
        static let edge = 5.0

        func isClear(_ p: Vec2, margin: Double = 0) -> Bool {
            guard active else { return true }
            let e = Self.edge + margin
            guard p.x >= e, p.y >= e, p.x <= surface.x - e, p.y <= surface.y - e else { return false }
            return bodies.allSatisfy { p.distance(to: $0.centre) >= $0.radius + margin }
        }

        /// `p` onto the surface and out to the rim of any footprint it lies under.
        func clear(_ p: Vec2) -> Vec2 {
            guard active else { return p }
            var q = onSurface(p)
            for b in bodies where q.distance(to: b.centre) < b.radius {
                let away = q - b.centre
                let dir = away.length > 1e-9 ? away / away.length : Vec2(1, 0)
                q = onSurface(b.centre + dir * b.radius)
            }
            return q
        }

        /// Where a finger moving from `p` towards `to` ends: there when the way is clear, else
        /// the same distance the other way, else as far along the way as it stays clear.
        func path(from p: Vec2, to: Vec2) -> Vec2 {
            guard active else { return to }
            let ahead = onSurface(to), back = onSurface(p - (to - p))
            if segmentClear(p, ahead) { return ahead }
            if segmentClear(p, back) { return back }
            var lo = 0.0, hi = 1.0
            for _ in 0..<20 {
                let mid = (lo + hi) / 2
                if segmentClear(p, p + (ahead - p) * mid) { lo = mid } else { hi = mid }
            }
            return p + (ahead - p) * lo
        }

        private func onSurface(_ p: Vec2) -> Vec2 {
            Vec2(min(max(p.x, Self.edge), surface.x - Self.edge), min(max(p.y, Self.edge), surface.y - Self.edge))
        }

        private func segmentClear(_ a: Vec2, _ b: Vec2) -> Bool {
            bodies.allSatisfy { body in
                let ab = b - a
                let t = ab.lengthSquared > 0 ? min(1, max(0, (body.centre - a).dot(ab) / ab.lengthSquared)) : 0
                return (a + ab * t).distance(to: body.centre) >= body.radius - 1e-9
            }
        }
    }

}
