// `demo --record` of the pairing walk-through: the define's calibration and the settings reach the recording.
import Foundation
import Testing
@testable import PercControl
@testable import PercRuntime
import PercTestSupport

@Suite(.serialized) struct DemoCalibrationRecordTests {
    @Test func theDemoRecordsDefinesCalibrationWithItsFrame() async throws {
        let tmp = try TempDir("pb-demo-calibrate")
        let path = tmp.path("demo.jsonl")
        let demo = try await ControlDemo(scenario: "pairing", extra: ["--record", path])
        defer { demo.stop() }
        let address = DemoPairingScenario.newPercAddress
        #expect(try await demo.cli(["pair", address]).status == 0)
        try await demo.waitUptime(4)
        let define = try await demo.cli(["define", "PERC red", "--address", address, "--json"])
        #expect(define.status == 0, "\(define.stderr)")
        // The recorder writes in batches: later frames push the calibration line out.
        let flushed = await eventually(20) {
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").contains("\"kind\":\"calibration\"")
        }
        #expect(flushed)
        let file = try RecordingFile.read(path: path)
        #expect(file.header.engine != nil && file.header.lightChecks != nil, "the demo's settings are in the header")
        let start = try #require(file.schedulerCommands.first)
        #expect(start.action == .start && start.tangible == 2 && start.pose != nil && start.afterFrame > 0, "\(start)")
        let schedule = RecordingSchedule(file)
        let at = try #require(schedule.steps.firstIndex { $0.before.contains(.calibration(start)) })
        #expect(schedule.steps[at].frame.number == start.afterFrame + 1)
        #expect(Replayer.run(file).calibrations >= 1)
    }
}
