// `percbridge demo` through the CLI: options are validated, a run is recorded and replays.
import Foundation
import Testing
import PercTestSupport

@Suite struct DemoCommandTests {
    @Test func badOptionsAreRefusedWithAReason() async throws {
        let version = try await offPool { try CLI.run(["demo", "--tuio-version", "3.0"]) }
        #expect(version.status != 0 && version.stderr.contains("--tuio-version must be 1.1, 2.0 or both"))
        let open = try await offPool { try CLI.run(["demo", "--http", "0.0.0.0:8080"]) }
        #expect(open.status != 0 && open.stderr.contains("give --token with at least 16 characters"))
        let scenario = try await offPool { try CLI.run(["demo", "--scenario", "no-such-scenario", "--http", "127.0.0.1:0"]) }
        #expect(scenario.status != 0 && scenario.stderr.contains("built-in: demo, single-placement"))
    }

    @Test func aRecordedDemoReplays() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pb-demo-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await offPool {
            try CLI.run(["demo", "--scenario", "single-placement", "--seed", "3", "--duration", "2", "--http", "127.0.0.1:0",
                         "--tuio", "127.0.0.1:9", "--record", file.path])
        }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("PERC A: tracked"), "\(run.stdout)")
        let replay = try await offPool { try CLI.run(["replay", file.path]) }
        #expect(replay.status == 0, "\(replay.stderr)")
        let frames = replay.stdout.split(separator: "\n").first { $0.hasPrefix("frames:") }
        let count = Int(frames?.split(separator: " ", omittingEmptySubsequences: true)[1] ?? "0") ?? 0
        #expect(count > 150)
    }
}
