// `percbridge bench …` hands over to percbridge-bench beside it, and says what to do when it is not there.
import Foundation
import Testing
import PercTestSupport

@Suite struct BenchLauncherTests {
    @Test func benchHandsItsArgumentsToPercbridgeBench() async throws {
        let help = try await offPool { try CLI.run(["bench", "--help"]) }
        #expect(help.status == 0, "\(help.stderr)")
        #expect(help.stdout.contains("USAGE: percbridge-bench") && help.stdout.contains("engine"), "\(help.stdout)")
        let engine = try await offPool { try CLI.run(["bench", "engine", "--tangibles", "0"]) }
        #expect(engine.status != 0 && engine.stderr.contains("--tangibles"), "percbridge-bench validated the option: \(engine.stderr)")
    }

    @Test func aPercbridgeWithoutItsBenchSaysHowToGetIt() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let alone = dir.appendingPathComponent("percbridge")
        try FileManager.default.copyItem(at: CLI.binary, to: alone)
        let r = try await offPool { try Helper.run(alone.path, ["bench", "engine"]) }
        #expect(r.status == 69, "EX_UNAVAILABLE: \(r.stderr)")
        #expect(r.stderr.contains("percbridge-bench, which is not beside") && r.stderr.contains("--product percbridge-bench"), "\(r.stderr)")
    }
}
