// Runtime failures as a user meets them: one `percbridge: error:` line, no usage, a sysexits code.
import Foundation
import Testing
import PercTestSupport

@Suite struct CLIErrorTests {
    private static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-clierr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    private static func expectOneErrorLine(_ r: CLI.Result, status: Int32, mentions: String,
                                           sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == status, "exit \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.hasPrefix("percbridge: error: "), "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.contains(mentions), "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(!r.stderr.contains("USAGE"), "a runtime error is not a usage error: \(r.stderr)", sourceLocation: sourceLocation)
    }

    @Test func serveWithANamedConfigThatIsNotThereStopsWithExit78() async throws {
        let r = try await offPool { try CLI.run(["serve", "--config", "/nonexistent/percbridge.toml", "--control-bus", "none"]) }
        Self.expectOneErrorLine(r, status: 78, mentions: "/nonexistent/percbridge.toml")
    }

    @Test func serveWithABrokenConfigStopsWithExit78() async throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("bad.toml").path
        try "[clock]\nrate_hz = 5000\n".write(toFile: file, atomically: true, encoding: .utf8)
        let r = try await offPool { try CLI.run(["serve", "--config", file, "--control-bus", "none"]) }
        Self.expectOneErrorLine(r, status: 78, mentions: "rate_hz")
    }

    @Test func configCheckSaysNoInputForAMissingFileAndConfigForABadOne() async throws {
        let missing = try await offPool { try CLI.run(["config", "check", "/nonexistent.toml"]) }
        Self.expectOneErrorLine(missing, status: 66, mentions: "/nonexistent.toml")
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("bad.toml").path
        try "[clock]\nrate_hz = 5000\n".write(toFile: file, atomically: true, encoding: .utf8)
        let bad = try await offPool { try CLI.run(["config", "check", file]) }
        #expect(bad.status == 78)
        #expect(bad.stderr.contains("rate_hz") && bad.stderr.contains("percbridge: error: 1 problem"), "\(bad.stderr)")
    }

    @Test func unreadableAndMalformedInputsGet66And65() async throws {
        let missing = try await offPool { try CLI.run(["replay", "/nonexistent.jsonl"]) }
        Self.expectOneErrorLine(missing, status: 66, mentions: "/nonexistent.jsonl")
        let inspect = try await offPool { try CLI.run(["input", "inspect", "/nonexistent.events"]) }
        Self.expectOneErrorLine(inspect, status: 66, mentions: "/nonexistent.events")
        let diagnose = try await offPool { try CLI.run(["diagnose", "--from", "/nonexistent.jsonl"]) }
        Self.expectOneErrorLine(diagnose, status: 66, mentions: "/nonexistent.jsonl")
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let garbage = dir.appendingPathComponent("garbage.jsonl").path
        try "this is not a recording\n".write(toFile: garbage, atomically: true, encoding: .utf8)
        let bad = try await offPool { try CLI.run(["replay", garbage]) }
        Self.expectOneErrorLine(bad, status: 65, mentions: "garbage.jsonl")
    }

    @Test func aServiceThatIsNotThereGets69() async throws {
        // A bus address where nothing listens: the control API cannot be reached.
        let r = try await offPool { try CLI.run(["status", "--bus", "unix:path=/nonexistent/bus"]) }
        #expect(r.status == 69, "exit \(r.status): \(r.stderr)")
        #expect(r.stderr.hasPrefix("percbridge: error: ") && !r.stderr.contains("USAGE"), "\(r.stderr)")
    }

    @Test func wrongArgumentsStillShowTheUsageWith64() async throws {
        let r = try await offPool { try CLI.run(["scan", "--timeout", "-1"]) }
        #expect(r.status == 64, "exit \(r.status): \(r.stderr)")
        #expect(r.stderr.contains("--timeout"))
    }

    @Test func inspectFindsTheDescOfARecordingNamedWithoutAGesture() async throws {
        // evemu-devices names some recordings `Device.events` (QUANTA OpticalTouchScreen.events):
        // the header is then `Device.desc` beside it.
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let events = dir.appendingPathComponent("ELAN CANDO Windows7.events").path
        try FileManager.default.copyItem(atPath: Fixture.evemu("ELAN CANDO Windows7.1-finger-drag-up-down.events"), toPath: events)
        let r0 = try await offPool { try CLI.run(["input", "inspect", events]) }
        #expect(r0.status == 65 && r0.stderr.contains("ELAN CANDO Windows7.desc") && r0.stderr.contains("--desc"), "\(r0.stderr)")
        try FileManager.default.copyItem(atPath: Fixture.evemu("ELAN CANDO Windows7.desc"),
                                         toPath: dir.appendingPathComponent("ELAN CANDO Windows7.desc").path)
        let r = try await offPool { try CLI.run(["input", "inspect", events, "--json"]) }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"device\" : \"ELAN CANDO Windows7\""), "\(r.stdout.prefix(300))")
    }
}
