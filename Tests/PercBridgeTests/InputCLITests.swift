// The input commands as a user runs them: inspect (text and JSON), record from a recording, replay.
import Foundation
import Testing
import PercInput
import PercRuntime
import PercTestSupport

@Suite struct InputCLITests {
    @Test func inspectJSONReportsContactsOfARealRecording() async throws {
        let r = try await offPool { try CLI.run(["input", "inspect", Fixture.evemu("Atmel maXTouch Touchscreen.4-finger-drag-down.events"), "--json"]) }
        #expect(r.status == 0, "\(r.stderr)")
        let report = try JSONDecoder().decode(RecordingReport.self, from: Data(r.stdout.utf8))
        #expect(report.device == "Atmel maXTouch Touchscreen")
        #expect(report.contactCount == 4 && report.maxSimultaneous == 4)
        #expect(report.contacts.map(\.id) == [21, 22, 23, 24])
        #expect(abs(report.durationSeconds - 0.566589) < 1e-6)
        #expect(report.units == "device units")
    }

    @Test func inspectTellsWhatIsMissingAndRefusesProtocolA() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let lone = dir.appendingPathComponent("Panel.drag.events").path
        try "E: 1.000000 0003 0039 1\nE: 1.000000 0000 0000 0\n".write(toFile: lone, atomically: true, encoding: .utf8)
        let r = try await offPool { try CLI.run(["input", "inspect", lone]) }
        #expect(r.status != 0 && r.stderr.contains(".desc"))
        let a = try await offPool { try CLI.run(["input", "inspect", Fixture.evemu("N-Trig MultiTouch.2-fingers-touch-release.events")]) }
        #expect(a.status == 0 && a.stdout.contains("NOT DECODED") && a.stdout.contains("protocol A"))
    }

    @Test func recordFromARecordingThenReplay() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("pb-rec-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = try await offPool { try CLI.run(["record", out, "--recording", Fixture.evemu("Atmel maXTouch Touchscreen.2-fingers-touch-release.events"), "--surface", "80x48"]) }
        #expect(r.status == 0, "\(r.stderr)")
        let file = try RecordingFile.read(path: out)
        let contacts = file.frames().flatMap(\.contacts)
        #expect(Set(contacts.map(\.contactID)) == [7, 8])
        #expect(contacts.filter { $0.phase == .end }.count == 2)
        #expect(file.header.sources.first?.hasPrefix("recording:") == true)
        let replay = try await offPool { try CLI.run(["replay", out, "--json"]) }
        #expect(replay.status == 0, "\(replay.stderr)")
        let rep = try JSONDecoder().decode(ReplayReport.self, from: Data(replay.stdout.utf8))
        #expect(rep.contactUpdates == contacts.count && rep.frames == file.frames().count)
        let again = try await offPool { try CLI.run(["replay", out, "--json"]) }
        #expect(again.stdout == replay.stdout)
    }
}
