// Live mode against a running `percbridge demo`: /diagnostics, the /metrics gauges, and --light-test.
import Foundation
import MTKTangibles
import MTKSimulator
import Testing
@testable import PercDiagnose
import PercTestSupport

@Suite(.serialized) struct DiagnoseLiveTests {
    /// One standard PERC set down at 0.5 s and left still (quiet hardware: no misses); its
    /// touches are filtered after 1–2 s, so it rests and the engine runs stationary checks too.
    static func stillPerc(in dir: URL) throws -> String {
        var hardware = BuiltInScenarios.quiet
        hardware.values["filterDelayMin"] = .number(1)
        hardware.values["filterDelayMax"] = .number(2)
        let s = Scenario(name: "still-perc", seed: 5, duration: 600, hardware: hardware,
                         tangibles: [ScenarioTangible(id: 1, name: "PERC A")],
                         steps: [ScenarioStep(at: 0.5, .place(.init(tangible: 1, position: [300, 200], angle: 30)))])
        let path = dir.appendingPathComponent("still.json").path
        try s.encoded().write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func liveDiagnosisAndLightTestAgainstTheDemo() async throws {
        let dir = try DiagnoseFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenario = try Self.stillPerc(in: dir)
        let recording = dir.appendingPathComponent("live.jsonl").path
        let demo = try await offPool { try DemoProcess(["--scenario", scenario, "--duration", "120", "--record", recording]) }
        defer { demo.stop() }
        try await Task.sleep(for: .seconds(3))

        let test = try await offPool { try CLI.run(["diagnose", "--light-test", "6", "PERC A", "--http", demo.address]) }
        #expect(test.status == 0, "\(test.stdout)\n\(test.stderr)")
        #expect(test.stdout.contains("progress 6/6"), "plain progress lines off a terminal:\n\(test.stdout)")
        #expect(test.stdout.contains("result: 6 checks, 6 answered, 0 missed (miss rate 0.0%)"), "\(test.stdout)")
        #expect(test.stdout.contains("response latency: p50 "), "\(test.stdout)")

        // On a terminal (`script` gives it one) the progress is a bar redrawn in place.
        let tty = try await offPool {
            try DemoProcess.onTerminal("'\(CLI.binary.path)' diagnose --light-test 3 'PERC A' --http \(demo.address)")
        }
        #expect(tty.status == 0 && tty.stdout.contains("\r[##########--------------------] 1/3") && tty.stdout.contains("] 3/3"), "\(tty.stdout)")

        let busy = try await offPool { try CLI.run(["diagnose", "--light-test", "3", "PERC Z", "--http", demo.address]) }
        #expect(busy.status != 0 && busy.stderr.contains("no tangible \"PERC Z\"; known: 1 (PERC A)"), "\(busy.stderr)")

        let live = try await offPool { try CLI.run(["diagnose", "--http", demo.address, "--json"]) }
        #expect(live.status == 0, "\(live.stderr)")
        let out = try JSONDecoder().decode(DiagnoseOutput.self, from: Data(live.stdout.utf8))
        let a = try #require(out.report.tangibles.first { $0.id == 1 })
        #expect(out.report.source == "live service" && out.report.frames > 300)
        #expect(a.field.onCount == 1 && a.field.onsetOffsetsMs.count == 3 && a.recognition.recognitions == 1, "\(a)")
        #expect(a.link.lost == 0 && a.link.notifications >= 10)
        #expect(a.light.spontaneousFlips == 0)
        // The light test's checks ran under the resting PERC's kept pose without upsetting the engine's own.
        #expect(a.recognition.restingSeconds > 1 && a.recognition.stationaryCheckFailures == 0 && a.recognition.restingLost == 0, "\(a.recognition)")
        #expect(a.light.answered >= 9 && a.light.misses == 0, "\(a.light)")

        let metrics = try await demo.get("/metrics")
        #expect(metrics.contains("percbridge_diagnose_field_on_total{tangible=\"1\"} 1"), "\(metrics.prefix(3000))")
        #expect(metrics.contains("percbridge_diagnose_notifications_total{tangible=\"1\"}"))

        // The tests' patches were LightCheck's scheduler's (asked for, recorded): the run
        // replays frame for frame, the test's patch changes applied where they were.
        demo.stop()
        let replay = try await replayMatchesEveryFrame(recording, minFrames: 300)
        #expect(replay["lightTestPatches"] as? Int ?? 0 >= 18, "a decoy and a probe per check, and their removal: \(replay)")
    }

    @Test func liveModeSaysWhatToDoWhenNoServiceRuns() async throws {
        let r = try await offPool { try CLI.run(["diagnose", "--http", "127.0.0.1:9"]) }
        #expect(r.status != 0 && r.stderr.contains("cannot reach the service at http://127.0.0.1:9"), "\(r.stderr)")
        #expect(r.stderr.contains("Give its address with --http HOST:PORT"))
    }
}
