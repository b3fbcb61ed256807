// Replay through the engine and the scheduler reproduces a live run's results bit for bit.
import Foundation
import Synchronization
import Testing
import MTKTangibles
@testable import PercRuntime
import PercSystem
import PercTestSupport

@Suite struct ReplayEngineTests {
    /// A live run: a PERC comes into range, goes on the surface, its three markers touch down
    /// and move; the core steps on every tick and its digests are recorded.
    func liveRun(path: String) async throws -> [String] {
        let defs = [TangibleDefinition.standardPerc(id: 1, name: "perc-1")]
        let recorder = try Recorder(path: path, header: RecordingHeader(writer: "test", surface: Vec2(1000, 600)))
        recorder.record(definitions: defs)
        let core = Mutex(ReplayCore(definitions: defs))
        let digests = Mutex<[String]>([])
        let clock = FrameClock(mode: .fixedRate(hz: 200), recorder: recorder)
        clock.start { frame in
            let d = core.withLock { $0.step(frame) }.digest
            recorder.record(result: d, frame: frame.number)
            digests.withLock { $0.append(d) }
        }
        let o = InputOrigin(kind: .json, device: "table")
        func now() -> Double { MonotonicClock.now() }
        clock.add(SensorEvent(tangible: 1, kind: .link, value: 1, arrival: now()))
        try await Task.sleep(for: .milliseconds(20))
        clock.add(SensorEvent(tangible: 1, kind: .field, value: 1, arrival: now()))
        let markers = [Vec2(300, 200), Vec2(330, 200), Vec2(300, 230)]
        for (i, m) in markers.enumerated() {
            clock.add(ContactUpdate(origin: o, contactID: Int64(i), phase: .begin, position: m, time: now(), arrival: now()))
        }
        for step in 1...20 {
            try await Task.sleep(for: .milliseconds(5))
            for (i, m) in markers.enumerated() {
                clock.add(ContactUpdate(origin: o, contactID: Int64(i), phase: .move, position: m + Vec2(Double(step) * 0.5, 0), time: now(), arrival: now()))
            }
            clock.add(ContactUpdate(origin: o, contactID: 9, phase: step == 1 ? .begin : .move, position: Vec2(800, 400 + Double(step)), time: now(), arrival: now()))
        }
        try await Task.sleep(for: .milliseconds(30))
        clock.stop()
        recorder.close()
        return digests.withLock { $0 }
    }

    @Test func replayMatchesTheLiveRunFrameByFrame() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pb-replay-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let live = try await liveRun(path: path)
        let file = try RecordingFile.read(path: path)
        var replayed: [String] = []
        var lastStates: [String] = []
        let report = Replayer.run(file) { _, s in
            replayed.append(s.digest)
            lastStates = s.engine.tangibles.map { "\($0.state)" }
        }
        #expect(report.frames == live.count && report.frames > 10)
        #expect(report.compared == live.count && report.mismatches.isEmpty)
        #expect(replayed == live)
        #expect(report.tangiblesDefined == 1 && lastStates.count == 1)
        // A second replay prints the same digests.
        #expect(Replayer.run(file).resultsDigest == report.resultsDigest)

        // A changed input (one contact moved by 1 mm) is caught at its frame.
        var text = try String(contentsOfFile: path, encoding: .utf8)
        let target = try #require(text.range(of: #""x":800"#))
        text.replaceSubrange(target, with: #""x":801"#)
        let tampered = try RecordingFile.parse(Data(text.utf8), sourceName: "tampered")
        let bad = Replayer.run(tampered)
        #expect(!bad.mismatches.isEmpty)
    }

    @Test func replayCommandPrintsDigestsAndFailsOnMismatch() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pb-replay-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try await liveRun(path: path)
        let r = try await offPool { try CLI.run(["replay", path]) }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("all identical to the live run"))
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: #""x":800"#, with: #""x":802"#)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let bad = try await offPool { try CLI.run(["replay", path]) }
        #expect(bad.status == 1 && bad.stdout.contains("differ (first: frame"))
    }
}
