// Test support: a seeded simulated table run through the pure core, observed by the diagnosis, also as a recording.
import Foundation
import LightCheck
import MTKTangibles
import MTKSimulator
@testable import PercDiagnose
@testable import PercRuntime
import PercInput

/// Two PERCs placed again and again (off the scanline angles), each left to rest so the
/// engine runs stationary light checks, then lifted; the display shows the scheduler's
/// overlays at the next 60 Hz refresh, as the demo does. Faults come from `model`.
struct SimulatedSession {
    var report: DiagnoseReport
    var truth: SimTruth
    var recording: RecordingFile
    var model: HardwareModel
    var duration: Seconds

    static func run(seed: UInt64, duration: Seconds, rate: Double = 120, cycle: Seconds = 20,
                    profile: PercProfile = .percV1, _ change: (inout HardwareModel) -> Void = { _ in }) -> SimulatedSession {
        var model = HardwareModel()
        // Resting soon after placement (stationary checks), and no touch-level noise the figures are not about.
        model.filterDelayMin = 1; model.filterDelayMax = 2
        model.singleTouchProbability = 0; model.scanlineTwoTouchProbability = 0
        model.lightMissProbability = 0; model.lightSpontaneousFlipRate = 0
        change(&model)
        let defs = [TangibleDefinition.standardPerc(id: 1, name: "PERC A", profile: profile),
                    TangibleDefinition.standardPerc(id: 2, name: "PERC B", profile: profile)]
        var world = SimWorld(seed: seed, model: model)
        for d in defs { world.add(d) }
        var placeRng = SimRandom(seed: seed &+ 17)
        var core = ReplayCore(definitions: defs)
        var collector = DiagnosticsCollector(definitions: defs)
        var assembler = FrameAssembler()
        var entries: [RecordEntry] = [.definitions(defs)]
        var nextAction = 1.0, placed = false
        let period = 1 / rate
        var n = 1
        while Double(n) * period <= duration {
            let t = Double(n) * period
            while t >= nextAction {
                if placed {
                    for d in defs { world.lift(d.id) }
                    nextAction += 2
                } else {
                    for (i, d) in defs.enumerated() {
                        let angle = (Double(placeRng.int(0...3)) * 90 + placeRng.uniform(10, 80)) * Double.pi / 180
                        world.place(d.id, at: Pose(position: Vec2(200 + 300 * Double(i) + placeRng.uniform(-50, 50),
                                                                  250 + placeRng.uniform(-80, 80)), angle: angle))
                    }
                    nextAction += cycle - 2
                }
                placed.toggle()
            }
            let out = world.advance(to: t)
            out.add(to: &assembler)
            entries += out.contacts.map(RecordEntry.contact) + out.sensorEvents.map(RecordEntry.sensor) + out.presented.map(RecordEntry.presented)
            let frame = assembler.cut(at: t)
            entries.append(.frame(number: frame.number, time: frame.time))
            let (output, plan) = core.advance(frame)
            collector.observe(FrameObservation(frame: frame, output: output, overlay: plan.overlay, outcomes: plan.outcomes,
                                               table: core.engine.table))
            if plan.overlayChanged {
                world.presentAtNextRefresh(plan.overlay, after: t)
            }
            n += 1
        }
        let header = RecordingHeader(writer: "test", surface: world.surface, rateHz: rate, sources: ["simulator:test"])
        return SimulatedSession(report: collector.report(source: "simulation seed \(seed)"), truth: world.truth,
                                recording: RecordingFile(header: header, entries: entries, bad: BadInputLog()),
                                model: model, duration: duration)
    }

    func tangible(_ id: TangibleID) -> TangibleDiagnosis { report.tangibles.first { $0.id == id }! }

    /// The recording as JSON Lines (what `percbridge demo --record` writes).
    func recordingText() throws -> String {
        var text = String(decoding: try RecordCoding.line(recording.header), as: UTF8.self)
        for e in recording.entries { text += String(decoding: try RecordCoding.line(e), as: UTF8.self) }
        return text
    }
}
