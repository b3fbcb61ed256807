// `percbridge diagnose` through the binary: table, --json, --suggest, --apply, bad input.
import Foundation
import Testing
@testable import PercDiagnose
@testable import PercRuntime
import PercTestSupport

@Suite struct DiagnoseCLITests {
    @Test func theTableShowsEveryPartPerTangible() async throws {
        try await DiagnoseFixture.withRecording { dir, file in
            let r = try await offPool { try CLI.run(["diagnose", "--from", file]) }
            #expect(r.status == 0, "\(r.stderr)")
            for part in ["PERC A (id 1, perc, perc-v1)", "PERC B (id 2", "  link ", "  field ", "  light ", "  recognition ",
                         "marker traces began", "response latency p50", "spontaneous flips"] {
                #expect(r.stdout.contains(part), "missing \(part) in\n\(r.stdout)")
            }
            let lostA = DiagnoseFixture.session.tangible(1).link.lost ?? -1
            #expect(lostA > 0 && r.stdout.contains("lost \(lostA) ("), "the table shows PERC A's \(lostA) lost notifications")
        }
    }

    @Test func jsonCarriesTheSameFiguresAsTheAnalysis() async throws {
        try await DiagnoseFixture.withRecording { dir, file in
            let r = try await offPool { try CLI.run(["diagnose", "--from", file, "--json"]) }
            #expect(r.status == 0, "\(r.stderr)")
            let out = try JSONDecoder().decode(DiagnoseOutput.self, from: Data(r.stdout.utf8))
            let expected = DiagnoseFixture.session.report
            #expect(out.report.tangibles.map(\.link) == expected.tangibles.map(\.link))
            #expect(out.report.tangibles.map(\.light) == expected.tangibles.map(\.light))
            #expect(out.report.tangibles.map(\.field.onsetOffsetsMs) == expected.tangibles.map(\.field.onsetOffsetsMs))
        }
    }

    @Test func suggestPrintsSettingsWithEvidence() async throws {
        try await DiagnoseFixture.withRecording { dir, file in
            let r = try await offPool { try CLI.run(["diagnose", "--from", file, "--suggest"]) }
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("recognition.time_window_ms = "), "\(r.stdout)")
            #expect(r.stdout.contains("marker traces in") && r.stdout.contains("around field-on"))
            #expect(r.stdout.contains("light_checks.max_failed_stationary = ") && r.stdout.contains("misses in a row by chance alone"))
        }
    }

    @Test func applyWritesTheSuggestionsAndKeepsCommentsAndOtherKeys() async throws {
        try await DiagnoseFixture.withRecording { dir, file in
            let config = dir.appendingPathComponent("percbridge.toml").path
            let original = """
            # my table
            [surface]
            name = "lab table"   # the big one
            width_mm = 1018

            [recognition]
            time_window_ms = 200  # thesis value
            marker_tolerance_mm = 3
            """
            try original.write(toFile: config, atomically: true, encoding: .utf8)
            let r = try await offPool { try CLI.run(["diagnose", "--from", file, "--apply", config]) }
            #expect(r.status == 0, "\(r.stderr)")
            let text = try String(contentsOfFile: config, encoding: .utf8)
            let window = DiagnoseFixture.session.report.tangibles.first!.field.suggestedWindowMs
            #expect(window != nil)
            #expect(r.stdout.contains("recognition.time_window_ms: 200 → "), "\(r.stdout)")
            #expect(text.contains("# my table") && text.contains("name = \"lab table\"   # the big one") && text.contains("marker_tolerance_mm = 3"))
            #expect(text.contains("time_window_ms = ") && text.contains("  # thesis value") && !text.contains("time_window_ms = 200"))
            // The stationary-failure limit is suggested too: a section the file lacks is added.
            #expect(text.contains("[light_checks]\nmax_failed_stationary = "), "\(text)")
            let parsed = try ConfigLoader.parse(text: text, file: config)
            #expect(parsed.recognition.timeWindowMS != 200 && parsed.surface.name == "lab table")
            // Applying again changes nothing.
            let again = try await offPool { try CLI.run(["diagnose", "--from", file, "--apply", config]) }
            #expect(again.status == 0 && again.stdout.contains("nothing to change"), "\(again.stdout)")
            #expect(try String(contentsOfFile: config, encoding: .utf8) == text)

            // Under a 180 ms window the replay's suggestion falls in the deadband: the file is
            // left as it was.
            let kept = dir.appendingPathComponent("kept.toml").path
            let keptText = original.replacingOccurrences(of: "time_window_ms = 200", with: "time_window_ms = 180")
            try keptText.write(toFile: kept, atomically: true, encoding: .utf8)
            let k = try await offPool { try CLI.run(["diagnose", "--from", file, "--apply", kept]) }
            #expect(k.status == 0 && k.stdout.contains("recognition.time_window_ms = 180   (now 180, unchanged)"), "\(k.stdout)")
            #expect(k.stdout.contains("nothing to change"), "\(k.stdout)")
            #expect(try String(contentsOfFile: kept, encoding: .utf8) == keptText)
        }
    }

    @Test func applyRefusesAConfigThatDoesNotParse() async throws {
        let r = try await Self.applyRefused(to: "[recognition]\ntime_window_ms = = 200\n")
        #expect(r.stderr.contains("does not parse") && r.stderr.contains("percbridge config check"), "\(r.stderr)")
    }

    /// `diagnose --apply` to a config file holding `text`: it fails and leaves the file as it
    /// was. Returns the run (its messages).
    /// The links' connection interval from the notifications' delays above the fastest (the
    /// simulated links wait up to 30 ms): kept at the default 30 ms (within 2 ms), raised in
    /// a config that says 7.5 ms, so a silent light-check round is not cut short.
    @Test func theLinksIntervalIsSuggestedFromTheNotificationDelays() async throws {
        try await DiagnoseFixture.withRecording { dir, file in
            let p99 = try #require(DiagnoseFixture.session.report.tangibles.compactMap(\.link.latencyAboveFastest).map(\.p99Ms).max())
            #expect(p99 > 25 && p99 < 34, "\(p99)")
            let r = try await offPool { try CLI.run(["diagnose", "--from", file, "--suggest"]) }
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("light_checks.ble_interval_ms = 30"), "\(r.stdout)")
            #expect(r.stdout.contains("later than the fastest: the wait for the links' connection interval"), "\(r.stdout)")

            let config = dir.appendingPathComponent("percbridge.toml").path
            try "[light_checks]\nble_interval_ms = 7.5  # what I asked BlueZ for\n".write(toFile: config, atomically: true, encoding: .utf8)
            let applied = try await offPool { try CLI.run(["diagnose", "--from", file, "--apply", config]) }
            #expect(applied.status == 0, "\(applied.stderr)")
            #expect(applied.stdout.contains("light_checks.ble_interval_ms: 8 → \(Int(p99.rounded(.up)))"), "\(applied.stdout)")
            let parsed = try ConfigLoader.parse(text: try String(contentsOfFile: config, encoding: .utf8), file: config)
            #expect(parsed.lightChecks.bleIntervalMS == p99.rounded(.up))
        }
    }

    /// The display's refresh from the gaps between presented reports: the fixture's simulated
    /// display refreshes at 60 Hz (kept); a session on a 120 Hz display gets 120 written.
    @Test func theDisplayRefreshIsMeasuredFromThePresentedReports() async throws {
        try await DiagnoseFixture.withRecording { dir, file in
            let r = try await offPool { try CLI.run(["diagnose", "--from", file, "--suggest"]) }
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("display: overlays presented on a 60.0 Hz refresh (16.67 ms;"), "\(r.stdout)")
            #expect(r.stdout.contains("light_checks.display_refresh_hz = 60"), "\(r.stdout)")
        }
        let fast = SimulatedSession.run(seed: 5, duration: 120) { m in m.displayFrameRate = 120 }
        let dir = try DiagnoseFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("fast.jsonl").path
        try fast.recordingText().write(toFile: file, atomically: true, encoding: .utf8)
        let config = dir.appendingPathComponent("percbridge.toml").path
        try "[surface]\nwidth_mm = 800\n".write(toFile: config, atomically: true, encoding: .utf8)
        let applied = try await offPool { try CLI.run(["diagnose", "--from", file, "--apply", config]) }
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(applied.stdout.contains("display: overlays presented on a 120.0 Hz refresh (8.33 ms;"), "\(applied.stdout)")
        #expect(applied.stdout.contains("light_checks.display_refresh_hz: 60 → 120"), "\(applied.stdout)")
        let parsed = try ConfigLoader.parse(text: try String(contentsOfFile: config, encoding: .utf8), file: config)
        #expect(parsed.lightChecks.displayRefreshHz == 120)
        #expect(abs(parsed.lightCheckConfig.latency.clockPriorDeadline - (4.0 / 120 + 0.03 + 0.0133333)) < 1e-6)
    }

    static func applyRefused(to text: String) async throws -> CLI.Result {
        try await DiagnoseFixture.withRecording { dir, file in
            let config = dir.appendingPathComponent("config.toml").path
            try text.write(toFile: config, atomically: true, encoding: .utf8)
            let r = try await offPool { try CLI.run(["diagnose", "--from", file, "--apply", config]) }
            #expect(r.status != 0)
            #expect(try String(contentsOfFile: config, encoding: .utf8) == text, "the file is left as it was")
            return r
        }
    }

    /// A config that writes the section as an inline table: refused with the line and what to
    /// do; the file is left as it was (before, a second [recognition] was written and refused
    /// as "would not parse, please report this").
    @Test func applyRefusesAnInlineTableAndSaysWhatToDo() async throws {
        let r = try await Self.applyRefused(to: "# mine\nrecognition = { time_window_ms = 200, marker_tolerance_mm = 3 }\n")
        #expect(r.stderr.contains("line 2 writes [recognition] as an inline table") && r.stderr.contains("nothing was changed"), "\(r.stderr)")
        #expect(!r.stderr.contains("please report this"), "\(r.stderr)")
    }

    @Test func badInputIsRefusedOrCountedWithAReason() async throws {
        let dir = try DiagnoseFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = try await offPool { try CLI.run(["diagnose", "--from", dir.appendingPathComponent("nope.jsonl").path]) }
        #expect(missing.status != 0 && missing.stderr.contains("no such file"), "\(missing.stderr)")

        let file = try DiagnoseFixture.recording(in: dir)
        var lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
        lines.insert("{\"kind\":\"sensor\",\"sensor\":{\"tangible\":1,", at: 5)
        let corrupt = dir.appendingPathComponent("corrupt.jsonl").path
        try lines.joined(separator: "\n").write(toFile: corrupt, atomically: true, encoding: .utf8)
        let c = try await offPool { try CLI.run(["diagnose", "--from", corrupt]) }
        #expect(c.status == 0, "\(c.stderr)")
        #expect(c.stderr.contains("1 unreadable lines skipped") && c.stdout.contains("1 unreadable lines skipped"), "\(c.stderr)")

        lines[0] = lines[0].replacingOccurrences(of: "\"version\":1", with: "\"version\":2")
        let newer = dir.appendingPathComponent("newer.jsonl").path
        try lines.joined(separator: "\n").write(toFile: newer, atomically: true, encoding: .utf8)
        let v = try await offPool { try CLI.run(["diagnose", "--from", newer]) }
        #expect(v.status != 0 && v.stderr.contains("version 2 is newer") && v.stderr.contains("update percbridge"), "\(v.stderr)")

        let notRecording = dir.appendingPathComponent("config.toml").path
        try "[surface]\n".write(toFile: notRecording, atomically: true, encoding: .utf8)
        let n = try await offPool { try CLI.run(["diagnose", "--from", notRecording]) }
        #expect(n.status != 0 && n.stderr.contains("not a PercBridge recording"), "\(n.stderr)")

        let t = try await offPool { try CLI.run(["diagnose", "--light-test", "5"]) }
        #expect(t.status != 0 && t.stderr.contains("--light-test N needs the tangible"), "\(t.stderr)")
    }

    @Test func helpTeachesWithExamples() async throws {
        let r = try await offPool { try CLI.run(["diagnose", "--help"]) }
        #expect(r.status == 0)
        #expect(r.stdout.contains("percbridge diagnose --from session.jsonl --apply percbridge.toml") && r.stdout.contains("--light-test 20"))
    }

    @Test func aRecordedDemoIsDiagnosed() async throws {
        let dir = try DiagnoseFixture.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("demo.jsonl").path
        let demo = try await offPool {
            try CLI.run(["demo", "--scenario", "single-placement", "--duration", "3", "--http", "127.0.0.1:0", "--tuio", "127.0.0.1:9", "--record", file])
        }
        #expect(demo.status == 0, "\(demo.stderr)")
        let r = try await offPool { try CLI.run(["diagnose", "--from", file, "--json"]) }
        #expect(r.status == 0, "\(r.stderr)")
        let out = try JSONDecoder().decode(DiagnoseOutput.self, from: Data(r.stdout.utf8))
        let a = out.report.tangibles.first { $0.name == "PERC A" }
        #expect(a?.field.onCount == 1 && a?.field.onsetOffsetsMs.count == 3 && a?.recognition.recognitions == 1, "\(String(describing: a))")
        #expect((a?.link.notifications ?? 0) >= 3 && a?.link.lost == 0)
    }
}
