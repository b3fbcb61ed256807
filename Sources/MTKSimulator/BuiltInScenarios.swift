// The named scenarios that ship with the simulator: a lively demo and one per thesis 3.3 case.
import MTKTangibles

/// Built-in scenarios by name (`percbridge demo <name>`, tests, benches). The thesis-case
/// scenarios switch off the misbehaviour they are not about (`quiet`), so each shows one case.
public enum BuiltInScenarios {
    /// All names, the demo first.
    public static let names: [String] = [
        "demo", "single-placement", "two-percs-together", "fingers-triple-nearby", "one-trace-at-placement",
        "two-traces-at-placement", "hypotenuse-tuple", "leg-tuple", "flicker-recovery", "ghost-touch-moving",
        "filtered-resting-lift", "lift-during-recognition", "link-loss", "shapes", "crowded",
    ]

    /// The scenario of that name, or nil.
    public static func named(_ name: String) -> Scenario? {
        switch name {
        case "demo": demo
        case "single-placement": single
        case "two-percs-together": twoTogether
        case "fingers-triple-nearby": fingersTriple
        case "one-trace-at-placement": oneTrace
        case "two-traces-at-placement": twoTraces
        case "hypotenuse-tuple": tuple(name, touches: [1, 2], "The standard PERC makes only the two touches of its hypotenuse: two candidate positions for the third marker, both under the footprint (thesis Fig. 3.13).")
        case "leg-tuple": tuple(name, touches: [0, 1], "The standard PERC makes only the two touches of one leg: four candidate positions, some outside the footprint (thesis Fig. 3.14).")
        case "flicker-recovery": flicker
        case "ghost-touch-moving": ghost
        case "filtered-resting-lift": filtered
        case "lift-during-recognition": liftDuring
        case "link-loss": linkLoss
        case "shapes": shapes
        case "crowded": crowded
        default: nil
        }
    }

    // MARK: Shapes (marker positions, mm)

    /// Right isosceles, legs 30 mm (the standard PERC).
    public static let standardMarkers: [ScenarioPoint] = [[0, 0], [30, 0], [0, 30]]
    /// Scalene, acute: sides 45, 39.1, 29.2 mm.
    public static let scaleneMarkers: [ScenarioPoint] = [[0, 0], [45, 0], [15, 25]]
    /// Obtuse: sides 52, 43.9, 21.6 mm (angle at the third marker ≈ 104°).
    public static let obtuseMarkers: [ScenarioPoint] = [[0, 0], [52, 0], [12, 18]]
    /// Near-equilateral: sides 36, 35.4, 36.4 mm.
    public static let nearEquilateralMarkers: [ScenarioPoint] = [[0, 0], [36, 0], [17, 31]]

    /// The settings the case scenarios use: no flicker, ghosts, single touches, filtering
    /// (within a minute), light misses or spontaneous flips unless the case is about them.
    public static let quiet = HardwareOverrides([
        "singleTouchProbability": .number(0), "scanlineTwoTouchProbability": .number(0), "flickerRate": .number(0),
        "ghostTouchProbability": .number(0), "filterDelayMin": .number(60), "filterDelayMax": .number(60),
        "lightMissProbability": .number(0), "lightSpontaneousFlipRate": .number(0),
    ])

    static func quiet(_ changes: [String: HardwareOverrides.Value]) -> HardwareOverrides {
        HardwareOverrides(quiet.values.merging(changes) { $1 })
    }

    static func perc(_ id: Int, _ name: String, _ markers: [ScenarioPoint]? = nil) -> ScenarioTangible {
        ScenarioTangible(id: id, name: name, markers: markers)
    }

    static func step(_ at: Seconds, _ action: ScenarioAction) -> ScenarioStep { ScenarioStep(at: at, action) }
    static func place(_ id: Int, _ p: ScenarioPoint, _ angle: Double, touches: [Int]? = nil) -> ScenarioAction {
        .place(.init(tangible: id, position: p, angle: angle, touches: touches))
    }
    static func lift(_ id: Int) -> ScenarioAction { .lift(.init(tangible: id)) }
}
