// A serve run with define → calibration start → forget (cancel) through the control API replays frame for frame.
import Foundation
import LightCheck
import MTKTangibles
import Testing
@testable import PercRuntime
import PercTestSupport

@Suite(.serialized) struct ServeCalibrationRecordTests {
    /// `define --address` measures a paired PERC and starts LightCheck's offset search where
    /// it lies; `forget` then cancels the search. Both change what the scheduler draws, so
    /// the recording holds them at the frame where the core applied them, and the header
    /// holds the run's light-check settings (a non-default patch radius here).
    @Test func calibrationsThroughTheControlAPIReplayFrameForFrame() async throws {
        let tmp = try TempDir("pb-serve-calibrate")
        var touches = EvemuScript(surface: Vec2(800, 500))
        touches.down(at: 0.3, [(0, 1, Vec2(400, 250)), (1, 2, Vec2(445, 250)), (2, 3, Vec2(415, 275))])
        try touches.text.write(toFile: tmp.path("touches.events"), atomically: true, encoding: .utf8)
        var registry = TangibleRegistry()
        _ = try registry.add(.standardPerc(id: 0, name: "red", address: BlueZTestbed.v1))
        try RegistryStore(path: tmp.path("tangibles.json")).save(registry)
        let recording = tmp.path("run.jsonl")
        let bus = try PrivateBus()
        defer { bus.stop() }
        let setup = ServeProcess.Setup(registry: tmp.path("tangibles.json"), bus: bus.address, touches: tmp.path("touches.events"))
        let serve = try ServeProcess(dir: tmp.url, config: setup.toml + "[light_checks]\npatch_radius_mm = 6\ndisplay_refresh_hz = 144\n",
                                     arguments: ["--record", recording, "--control-bus", bus.address])
        try await serve.waitForControlAPI(on: bus.address)
        let address = bus.address

        let define = Task { try await offPool { try CLI.run(["define", "PERC red", "--address", BlueZTestbed.v1, "--bus", address]) } }
        #expect(await serve.waitForLog("calibrating the light sensor of tangible 1", seconds: 20), "\(serve.log)")
        try await Task.sleep(for: .milliseconds(500))
        let forget = try await offPool { try CLI.run(["forget", "PERC red", "--bus", address]) }
        #expect(forget.status == 0, "\(forget.stderr)\n\(serve.log)")
        let defined = try await define.value
        #expect(defined.status == 1 && defined.stderr.contains("PERC red"), "the search was cancelled under it: \(defined.stderr)")
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await serve.terminate() == 0, "\(serve.log)")

        let text = try String(contentsOfFile: recording, encoding: .utf8)
        let file = try RecordingFile.read(path: recording)
        #expect(file.header.lightChecks?.patchRadius == 6 && file.header.engine != nil)
        let deadline = try #require(file.header.lightChecks?.latency.clockPriorDeadline)
        #expect(abs(deadline - (4.0 / 144 + 0.03 + LatencyModel.Settings.clockPriorAllowance)) < 1e-9, "the config's display: \(deadline)")
        #expect(file.schedulerCommands.map(\.action) == [.start, .cancel], "\(file.schedulerCommands)")
        let report = try await replayMatchesEveryFrame(recording, minFrames: 50)
        #expect(report["calibrations"] as? Int == 2)
        #expect((report["settings"] as? String)?.hasPrefix("recorded in the header") == true)

        // Without the calibration lines the replay cannot reproduce the frames after the start.
        let stripped = text.split(separator: "\n").filter { !$0.contains("\"kind\":\"calibration\"") }.joined(separator: "\n")
        let startFrame = try #require(file.schedulerCommands.first?.afterFrame)
        let without = Replayer.run(try RecordingFile.parse(Data(stripped.utf8), sourceName: "stripped"))
        #expect(!without.mismatches.isEmpty && without.firstMismatch! > startFrame, "\(without.mismatches.prefix(3)) after \(startFrame)")
    }
}
