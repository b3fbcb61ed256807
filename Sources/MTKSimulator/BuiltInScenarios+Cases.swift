// The built-in scenarios themselves (names and purposes in BuiltInScenarios.swift).
import MTKTangibles

extension BuiltInScenarios {
    static var demo: Scenario {
        Scenario(
            name: "demo",
            description: "Three PERCs (standard, scalene, near-equilateral) and an obtuse PUC on a table with fingers: placements, moves, rotations, a resting finger, a finger triple, a link loss and a scene change. Loops every 42 s with everything lifted.",
            seed: 2026, duration: 42, loop: true,
            tangibles: [perc(1, "PERC standard"), perc(2, "PERC scalene", scaleneMarkers),
                        perc(3, "PERC near-equilateral", nearEquilateralMarkers),
                        ScenarioTangible(id: 4, name: "PUC obtuse", kind: .puc, markers: obtuseMarkers)],
            steps: [
                step(0.5, place(1, [200, 180], 20)),
                step(1.5, place(4, [600, 350], 200)),
                step(2.5, .fingerDown(.init(finger: 1, position: [400, 100]))),
                step(3.0, .fingerMove(.init(finger: 1, to: [450, 300], duration: 1.5))),
                step(4.0, place(2, [550, 150], 75)),
                step(5.0, .fingerUp(.init(finger: 1))),
                step(6.0, .move(.init(tangible: 1, to: [350, 250], turn: 90, speed: 80))),
                step(8.0, place(3, [250, 380], 135)),
                step(10.0, .touch(.init(tangible: 2, point: [5, 5], duration: 3))),
                step(11.0, .fingersTriple(.init(fingers: [11, 12, 13], like: 1, position: [680, 430], angle: 30))),
                step(13.0, .rotate(.init(tangible: 3, by: 180, duration: 3))),
                step(14.0, .fingerUp(.init(finger: 11))),
                step(14.0, .fingerUp(.init(finger: 12))),
                step(14.0, .fingerUp(.init(finger: 13))),
                step(16.0, .move(.init(tangible: 2, to: [150, 120], via: [[400, 60]], turn: -60, speed: 120))),
                step(18.0, .move(.init(tangible: 4, to: [500, 260], speed: 60))),
                step(19.0, .linkLoss(.init(tangible: 3))),
                step(20.0, .fingerDown(.init(finger: 2, position: [300, 300]))),
                step(20.5, .fingerMove(.init(finger: 2, to: [330, 330], via: [[340, 290], [360, 320]], duration: 3))),
                step(23.0, .linkReturn(.init(tangible: 3))),
                step(24.0, .fingerUp(.init(finger: 2))),
                step(25.0, lift(1)),
                step(27.0, place(1, [620, 110], 300)),
                step(28.0, .background(.white)),
                step(30.0, .move(.init(tangible: 3, to: [420, 400], speed: 50))),
                step(33.0, .background(.black)),
                step(34.0, .move(.init(tangible: 1, to: [560, 200], turn: -45, duration: 2))),
                step(36.0, lift(2)),
                step(37.0, lift(4)),
                step(38.5, lift(3)),
                step(40.0, lift(1)),
            ])
    }

    static var single: Scenario {
        Scenario(name: "single-placement",
                 description: "One standard PERC set down untouched, left still, lifted: three marker touches around the field-on notification.",
                 seed: 1, duration: 4, hardware: quiet, tangibles: [perc(1, "PERC A")],
                 steps: [step(0.5, place(1, [300, 200], 30)), step(3.5, lift(1))])
    }

    static var twoTogether: Scenario {
        Scenario(name: "two-percs-together",
                 description: "Two standard PERCs set down 50 ms apart, 80 mm from each other: two fitting triples in both time windows.",
                 seed: 2, duration: 4, hardware: quiet, tangibles: [perc(1, "PERC A"), perc(2, "PERC B")],
                 steps: [step(0.5, place(1, [300, 200], 30)), step(0.55, place(2, [380, 220], 110)),
                         step(3.5, lift(1)), step(3.5, lift(2))])
    }

    static var fingersTriple: Scenario {
        Scenario(name: "fingers-triple-nearby",
                 description: "Three fingers come down in the PERC's pattern 150 mm away, inside its time window: two fitting triples; the light check must pick the PERC's.",
                 seed: 3, duration: 4, hardware: quiet, tangibles: [perc(1, "PERC A")],
                 steps: [step(0.5, place(1, [300, 200], 30)),
                         step(0.6, .fingersTriple(.init(fingers: [1, 2, 3], like: 1, position: [450, 200], angle: 75))),
                         step(3.0, .fingerUp(.init(finger: 1))), step(3.0, .fingerUp(.init(finger: 2))),
                         step(3.0, .fingerUp(.init(finger: 3))), step(3.5, lift(1))])
    }

    static var oneTrace: Scenario {
        Scenario(name: "one-trace-at-placement",
                 description: "The PERC makes a single touch at placement (3.2% case); it cannot be recognised until it is moved at 2.5 s and the other markers touch.",
                 seed: 4, duration: 5, hardware: quiet, tangibles: [perc(1, "PERC A")],
                 steps: [step(0.5, place(1, [300, 200], 30, touches: [1])),
                         step(2.5, .move(.init(tangible: 1, to: [340, 200], duration: 0.5))),
                         step(4.5, lift(1))])
    }

    static var twoTraces: Scenario {
        Scenario(name: "two-traces-at-placement",
                 description: "Set down at 0° (scanline-aligned): one marker makes no touch (which one depends on the seed); two traces until it is moved at 3 s.",
                 seed: 5, duration: 5, hardware: quiet(["scanlineTwoTouchProbability": .number(1)]), tangibles: [perc(1, "PERC A")],
                 steps: [step(0.5, place(1, [300, 200], 0)),
                         step(3.0, .move(.init(tangible: 1, to: [330, 220], turn: 20, duration: 0.5))),
                         step(4.5, lift(1))])
    }

    static func tuple(_ name: String, touches: [Int], _ description: String) -> Scenario {
        Scenario(name: name, description: description, seed: 6, duration: 5, hardware: quiet, tangibles: [perc(1, "PERC A")],
                 steps: [step(0.5, place(1, [300, 200], 30, touches: touches)), step(4.5, lift(1))])
    }

    static var flicker: Scenario {
        Scenario(name: "flicker-recovery",
                 description: "A placed PERC slides for 3 s; marker 0 drops out for 6 touch frames at 2 s and marker 2 for 10 at 3 s, each coming back as a new contact near the last pose.",
                 seed: 7, duration: 6, hardware: quiet, tangibles: [perc(1, "PERC A")],
                 steps: [step(0.5, place(1, [200, 200], 30)),
                         step(1.5, .move(.init(tangible: 1, to: [440, 260], turn: 45, duration: 3))),
                         step(2.0, .flicker(.init(tangible: 1, marker: 0, frames: 6))),
                         step(3.0, .flicker(.init(tangible: 1, marker: 2, frames: 10))),
                         step(5.5, lift(1))])
    }

    static var ghost: Scenario {
        Scenario(name: "ghost-touch-moving",
                 description: "As the PERC starts moving at 2 s, marker 1's touch freezes where it was for 2–5 s (ghost touch); the marker comes back as a new contact that moves with the PERC.",
                 seed: 8, duration: 8, hardware: quiet, tangibles: [perc(1, "PERC A")],
                 steps: [step(0.5, place(1, [200, 200], 30)),
                         step(2.0, .move(.init(tangible: 1, to: [400, 250], duration: 2, ghostMarker: 1))),
                         step(7.5, lift(1))])
    }

    static var filtered: Scenario {
        Scenario(name: "filtered-resting-lift",
                 description: "Left untouched, the PERC's touches are filtered 5 s after it comes to rest; its field sensor stays on (resting, stationary checks) until it is lifted at 12 s.",
                 seed: 9, duration: 13, hardware: quiet(["filterDelayMin": .number(5), "filterDelayMax": .number(5)]),
                 tangibles: [perc(1, "PERC A")],
                 steps: [step(0.5, place(1, [300, 200], 30)), step(12.0, lift(1))])
    }

    static var liftDuring: Scenario {
        Scenario(name: "lift-during-recognition",
                 description: "A finger triple fits the PERC nearby so recognition needs light checks; the PERC is lifted 0.5 s after placement, during them.",
                 seed: 10, duration: 3, hardware: quiet, tangibles: [perc(1, "PERC A")],
                 steps: [step(0.5, place(1, [300, 200], 30)),
                         step(0.55, .fingersTriple(.init(fingers: [1, 2, 3], like: 1, position: [420, 230], angle: 200))),
                         step(1.0, lift(1)),
                         step(2.5, .fingerUp(.init(finger: 1))), step(2.5, .fingerUp(.init(finger: 2))),
                         step(2.5, .fingerUp(.init(finger: 3)))])
    }

    static var linkLoss: Scenario {
        Scenario(name: "link-loss",
                 description: "A placed PERC goes out of range at 2 s (the host reports it 2 s later), comes back at 6 s and reports field on again; lifted at 8 s.",
                 seed: 11, duration: 9, hardware: quiet, tangibles: [perc(1, "PERC A")],
                 steps: [step(0.5, place(1, [300, 200], 30)), step(2.0, .linkLoss(.init(tangible: 1))),
                         step(6.0, .linkReturn(.init(tangible: 1))), step(8.0, lift(1))])
    }

    static var shapes: Scenario {
        Scenario(name: "shapes",
                 description: "Non-standard PERCs one after another: scalene, obtuse, near-equilateral; each placed, moved, lifted.",
                 seed: 12, duration: 12, hardware: quiet,
                 tangibles: [perc(1, "PERC scalene", scaleneMarkers), perc(2, "PERC obtuse", obtuseMarkers),
                             perc(3, "PERC near-equilateral", nearEquilateralMarkers)],
                 steps: [step(0.5, place(1, [200, 200], 40)),
                         step(2.0, .move(.init(tangible: 1, to: [260, 240], turn: 30, duration: 1))),
                         step(3.5, lift(1)),
                         step(4.0, place(2, [400, 250], 100)),
                         step(5.5, .move(.init(tangible: 2, to: [440, 210], turn: -30, duration: 1))),
                         step(7.5, lift(2)),
                         step(8.0, place(3, [600, 300], 220)),
                         step(9.5, .move(.init(tangible: 3, to: [560, 260], turn: 15, duration: 1))),
                         step(11.5, lift(3))])
    }

    /// A crowded table (issue 32): 16 PERCs, four of each pattern, and 20 fingers. PERCs of one
    /// pattern are set down in pairs 36 ms apart next to each other (each could be on the
    /// other's traces), ten fingers rest between them from the start and ten wander; four
    /// PERCs move, and two pairs are lifted and set down again on each other's places.
    static var crowded: Scenario {
        let patterns = [standardMarkers, scaleneMarkers, obtuseMarkers, nearEquilateralMarkers]
        let names = ["standard", "scalene", "obtuse", "near-equilateral"]
        let tangibles = (1...16).map { i in perc(i, "PERC \(names[(i - 1) / 4]) \((i - 1) % 4 + 1)", patterns[(i - 1) / 4]) }
        func spot(_ i: Int) -> ScenarioPoint { [Double(130 + 245 * ((i - 1) % 4)), Double(100 + 135 * ((i - 1) / 4))] }
        func angle(_ i: Int) -> Double { Double((i * 47) % 360) }
        var steps: [ScenarioStep] = []
        // Ten fingers resting between the PERCs' places before any PERC comes.
        for k in 0..<10 {
            let p: ScenarioPoint = [Double(252 + 245 * (k % 3)), Double(167 + 135 * (k / 3 % 3)) + (k == 9 ? 60 : 0)]
            steps.append(step(0.2, .fingerDown(.init(finger: 100 + k, position: p))))
        }
        // Pairs of one pattern, 36 ms apart, next to each other.
        for p in 0..<4 {
            for pair in 0..<2 {
                let a = p * 4 + pair * 2 + 1, t = 0.5 + Double(p) * 1.0 + Double(pair) * 0.5
                steps.append(step(t, place(a, spot(a), angle(a))))
                steps.append(step(t + 0.036, place(a + 1, spot(a + 1), angle(a + 1))))
            }
        }
        // Ten wandering fingers: down, across the table, up, again.
        for k in 0..<10 {
            let start = 1.0 + Double(k) * 0.9
            let from: ScenarioPoint = [Double(60 + 90 * k), k % 2 == 0 ? 40 : 560]
            let to: ScenarioPoint = [Double(940 - 90 * k), k % 2 == 0 ? 560 : 40]
            steps.append(step(start, .fingerDown(.init(finger: 200 + k, position: from))))
            steps.append(step(start + 0.3, .fingerMove(.init(finger: 200 + k, to: to, duration: 4))))
            steps.append(step(start + 4.6, .fingerUp(.init(finger: 200 + k))))
        }
        // Four PERCs move and turn.
        for (n, i) in [1, 6, 11, 16].enumerated() {
            steps.append(step(12 + Double(n) * 0.3, .move(.init(tangible: i, to: [spot(i).x + 40, spot(i).y + 25], turn: 30, duration: 1.5))))
        }
        // Two same-pattern pairs lifted and set down again on each other's places, 36 ms apart.
        for (t, a, b) in [(16.0, 2, 3), (19.0, 7, 8)] {
            steps.append(step(t, lift(a))); steps.append(step(t, lift(b)))
            steps.append(step(t + 1, place(a, spot(b), angle(b) + 20)))
            steps.append(step(t + 1.036, place(b, spot(a), angle(a) + 20)))
        }
        // The end: everything lifted, every finger up (as every built-in scenario ends).
        for i in 1...16 { steps.append(step(24 + Double(i) * 0.1, lift(i))) }
        for k in 0..<10 { steps.append(step(25.8, .fingerUp(.init(finger: 100 + k)))) }
        // In time order (a stable sort keeps same-time steps as written).
        steps = steps.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        return Scenario(name: "crowded",
                        description: "16 PERCs (four of each pattern, set down in pairs of one pattern 36 ms apart) and 20 fingers (ten resting among them, ten wandering); four PERCs move, two pairs swap places.",
                        seed: 32, surface: [1000, 600], duration: 26, loop: false, tangibles: tangibles, steps: steps)
    }
}
