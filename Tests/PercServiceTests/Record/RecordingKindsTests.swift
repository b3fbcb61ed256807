// The recording's calibration and rssi kinds and its settings header: round trips, order in the schedule, exact RSSI figures.
import Foundation
import LightCheck
import MTKTangibles
import Testing
@testable import PercDiagnose
@testable import PercRuntime

@Suite struct RecordingKindsTests {
    func header(_ h: RecordingHeader) throws -> String { String(decoding: try RecordCoding.line(h), as: UTF8.self) }
    func line(_ e: RecordEntry) throws -> String { String(decoding: try RecordCoding.line(e), as: UTF8.self) }

    @Test func newKindsRoundTripAndOldHeadersStillRead() throws {
        let start = SchedulerCommand(action: .start, tangible: 2, afterFrame: 41, time: 5123.0125, pose: Pose(position: Vec2(300, 200), angle: 0.5))
        let rssi = RSSISample(tangible: 2, address: "C0:FF:EE:00:00:01", dBm: -55, arrival: 5123.5)
        var custom = LightCheckConfig()
        custom.patchRadius = 6
        let text = try header(RecordingHeader(writer: "t", surface: Vec2(800, 500), engine: EngineConfig(), lightChecks: custom))
            + (try line(.calibration(start))) + (try line(.rssi(rssi)))
            + (try line(.calibration(SchedulerCommand(action: .cancel, tangible: 2, afterFrame: 50, time: 5124))))
        let file = try RecordingFile.parse(Data(text.utf8), sourceName: "t")
        #expect(file.bad.total == 0)
        #expect(file.header.lightChecks?.patchRadius == 6 && file.header.engine == EngineConfig())
        #expect(file.schedulerCommands.first == start && file.schedulerCommands.count == 2)
        #expect(file.rssiSamples == [rssi])
        #expect(file.frames().isEmpty, "neither kind is a frame input")

        let old = #"{"clock":"fixed","format":"percbridge-recording","rateHz":120,"sources":[],"version":1,"writer":"percbridge 0.1.0 serve"}"# + "\n"
        let oldFile = try RecordingFile.parse(Data(old.utf8), sourceName: "old")
        #expect(oldFile.header.engine == nil && oldFile.header.lightChecks == nil)
        let schedule = RecordingSchedule(oldFile)
        #expect(!schedule.settingsRecorded && schedule.engine == EngineConfig() && schedule.settingsNote().hasPrefix("the defaults"))
        #expect(RecordingSchedule(file).settingsRecorded && RecordingSchedule(file).lightChecks.patchRadius == 6)
    }

    /// A calibration applied after frame N comes before frame N+1, after a definitions switch
    /// of the same gap, wherever its line stands in the file.
    @Test func theScheduleAppliesCalibrationsAfterTheDefinitionsOfTheSameGap() throws {
        let defs = [TangibleDefinition.standardPerc(id: 1, name: "p")]
        let c = SchedulerCommand(action: .start, tangible: 1, afterFrame: 2, time: 0.02, pose: Pose(position: Vec2(10, 10), angle: 0))
        let entries: [RecordEntry] = [.definitions([]), .frame(number: 1, time: 0.01), .frame(number: 2, time: 0.02), .definitions(defs),
                                      .frame(number: 3, time: 0.03), .calibration(c), .frame(number: 4, time: 0.04)]
        let text = try header(RecordingHeader(writer: "t", surface: nil)) + entries.map(line).joined()
        let schedule = RecordingSchedule(try RecordingFile.parse(Data(text.utf8), sourceName: "t"))
        #expect(schedule.steps.map(\.before.count) == [0, 0, 2, 0])
        #expect(schedule.steps[2].before == [.definitions(defs), .calibration(c)])
    }

    @Test func rssiFiguresAreExact() {
        var acc = RSSIAccumulator()
        #expect(acc.report(origin: 0, end: 10).count == 0)
        #expect(acc.report(origin: 0, end: 10).note == RSSIFigures.noneNote)
        for (i, v) in [-40, -70, -55].enumerated() { acc.observe(RSSISample(tangible: 1, address: "A", dBm: v, arrival: 100 + Double(i))) }
        acc.observe(RSSISample(tangible: 1, address: "A", dBm: 0, arrival: 200))  // BlueZ's "none": ignored
        var f = acc.report(origin: 90, end: 110)
        #expect(f.count == 3 && f.lastDBm == -55 && f.minDBm == -70 && f.medianDBm == -55 && f.maxDBm == -40)
        #expect(f.lastSeenAt == 12 && f.lastSeenBeforeEnd == 8)
        acc.observe(RSSISample(tangible: 1, address: "A", dBm: -127, arrival: 99))  // late arrival: not the last
        f = acc.report(origin: 90, end: 110)
        #expect(f.count == 4 && f.minDBm == -127 && f.medianDBm == -62.5 && f.lastDBm == -55)
    }

    /// A run whose settings differ from the defaults replays exactly only with the settings
    /// its header carries; without them (an old recording) it differs.
    @Test func recordedSettingsAreWhatReplayUses() throws {
        var custom = LightCheckConfig()
        custom.patchRadius = 7
        var engine = EngineConfig()
        engine.timeWindow = 0.05
        let defs = [TangibleDefinition.standardPerc(id: 1, name: "perc-1")]
        var core = ReplayCore(definitions: defs, engineConfig: engine, lightCheckConfig: custom)
        var entries: [RecordEntry] = [.definitions(defs)]
        let o = InputOrigin(kind: .json, device: "table")
        let markers = [Vec2(300, 200), Vec2(330, 200), Vec2(300, 230)]
        var assembler = FrameAssembler()
        for n in 1...60 {
            let t = Double(n) / 120
            var inputs: [RecordEntry] = []
            if n == 1 { inputs.append(.sensor(SensorEvent(tangible: 1, kind: .link, value: 1, arrival: t - 0.001))) }
            if n == 3 { inputs.append(.sensor(SensorEvent(tangible: 1, kind: .field, value: 1, arrival: t - 0.001))) }
            if n >= 4 {
                for (i, m) in markers.enumerated() {
                    inputs.append(.contact(ContactUpdate(origin: o, contactID: Int64(i), phase: n == 4 ? .begin : .move, position: m,
                                                         time: t - 0.001, arrival: t - 0.001)))
                }
            }
            for e in inputs {
                if case .contact(let c) = e { assembler.add(c) }
                if case .sensor(let s) = e { assembler.add(s) }
            }
            var frame = assembler.cut(at: t)
            frame.number = UInt64(n)
            entries += inputs + [.frame(number: UInt64(n), time: t), .result(frame: UInt64(n), digest: core.step(frame).digest)]
        }
        let body = try entries.map(line).joined()
        let withSettings = try RecordingFile.parse(Data((try header(RecordingHeader(writer: "t", surface: nil, engine: engine, lightChecks: custom)) + body).utf8), sourceName: "t")
        let report = Replayer.run(withSettings)
        #expect(report.compared == 60 && report.mismatches.isEmpty && report.settings.hasPrefix("recorded in the header"))
        let without = try RecordingFile.parse(Data((try header(RecordingHeader(writer: "t", surface: nil)) + body).utf8), sourceName: "t")
        let old = Replayer.run(without)
        #expect(!old.mismatches.isEmpty, "the window guess is decided 50 ms after field-on live, 200 ms with the defaults")
        #expect(old.settings.hasPrefix("the defaults"))
    }
}
