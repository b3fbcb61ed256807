// The demo's `pairing` scenario: a PERC the service does not know yet lies on the surface.
import MTKTangibles
import MTKSimulator

/// For the pairing walk-through (docs/pairing.md) on `percbridge demo --scenario pairing`:
/// a known standard PERC wanders about; a second PERC (scalene markers, light sensor off the
/// standard place) is in range, unpaired and undefined, and is put down at 3 s and left
/// there. The touch hardware never filters still markers here, so there is time to pair,
/// define and calibrate by hand.
public enum DemoPairingScenario {
    public static let name = "pairing"
    /// The PERC the registry starts without (simulator id).
    static let newPercID: TangibleID = 7
    static let newPercAddress = "C0:FF:EE:00:00:07"
    /// Its true light-sensor offset (what calibration should find, in its own frame).
    static let newPercOffset: ScenarioPoint = [14, -4]

    public static var scenario: Scenario {
        Scenario(
            name: name,
            description: "A known PERC moves about; an unknown PERC (C0:FF:EE:00:00:07) is put down at 3 s and left still, waiting to be paired, defined and calibrated.",
            seed: 36, duration: 86_400, loop: false,
            hardware: HardwareOverrides(BuiltInScenarios.quiet.values.merging(["filterDelayMin": .number(86_400), "filterDelayMax": .number(86_400)]) { $1 }),
            tangibles: [
                ScenarioTangible(id: 1, name: "PERC standard", address: "C0:FF:EE:00:00:01"),
                ScenarioTangible(id: newPercID, name: "PERC new", markers: BuiltInScenarios.scaleneMarkers,
                                 lightSensorOffset: newPercOffset, address: newPercAddress),
            ],
            steps: [
                ScenarioStep(at: 1, .place(.init(tangible: 1, position: [200, 150], angle: 20))),
                ScenarioStep(at: 3, .place(.init(tangible: newPercID, position: [500, 300], angle: 35))),
                ScenarioStep(at: 6, .move(.init(tangible: 1, to: [260, 330], turn: 60, speed: 40))),
            ])
    }
}
