// Recording: what the live frame clock cut is what replay cuts, bit for bit; bad lines are located.
import Foundation
import Synchronization
import Testing
import MTKTangibles
@testable import PercRuntime
import PercSystem
import PercInput
import PercTestSupport

@Suite struct RecordReplayTests {
    func tempPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pb-rec-\(UUID().uuidString)-\(name)").path
    }

    @Test func liveFramesFromConcurrentInputsReplayBitForBit() async throws {
        let path = tempPath("live.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try Recorder(path: path, header: RecordingHeader(writer: "test", surface: Vec2(1000, 500), sources: ["test"]))
        let clock = FrameClock(mode: .fixedRate(hz: 240), recorder: recorder)
        let live = Mutex<[Frame]>([])
        clock.start { f in live.withLock { $0.append(f) } }
        // Two producers on their own threads, like a touch source and a BLE link.
        await withTaskGroup(of: Void.self) { g in
            g.addTask {
                let o = InputOrigin(kind: .evdev, device: "panel")
                for i in 0..<200 {
                    let t = MonotonicClock.now()
                    clock.add(ContactUpdate(origin: o, contactID: Int64(i % 3), phase: .move, position: Vec2(Double(i) / 3, 1.0 / 3),
                                            major: i % 2 == 0 ? 7.1 : nil, time: t - 0.001, arrival: t))
                    try? await Task.sleep(for: .microseconds(700))
                }
            }
            g.addTask {
                for i in 0..<50 {
                    clock.add(SensorEvent(tangible: 2, kind: .light, value: i % 2, sequence: UInt16(i), deviceTime: UInt32(i * 1000), arrival: MonotonicClock.now()))
                    if i % 10 == 0 { clock.add(PresentedOverlay(overlayID: UInt64(i), from: MonotonicClock.now())) }
                    try? await Task.sleep(for: .milliseconds(2))
                }
            }
        }
        try await Task.sleep(for: .milliseconds(20))
        clock.stop()
        recorder.close()
        let liveFrames = live.withLock { $0 }
        let file = try RecordingFile.read(path: path)
        #expect(file.header.surface == Vec2(1000, 500))
        #expect(file.bad.total == 0)
        let replayed = file.frames()
        #expect(replayed.count == liveFrames.count)
        #expect(replayed == liveFrames) // Hashable equality: every Double bit-identical
        #expect(replayed.flatMap(\.contacts).count == 200 && replayed.flatMap(\.sensorEvents).count == 50)
        #expect(FrameDigest.of(replayed) == FrameDigest.of(liveFrames))
    }

    @Test func badLinesAreSkippedWithTheirLineAndForeignFilesRejected() throws {
        let header = String(decoding: try RecordCoding.line(RecordingHeader(writer: "t", surface: nil)), as: UTF8.self)
        let good = String(decoding: try RecordCoding.line(RecordEntry.frame(number: 1, time: 2.5)), as: UTF8.self)
        let text = header + good + "{\"kind\": \"contact\"}\n{\"kind\":\"warp\"}\n{trunc" + "\n" + good
        let f = try RecordingFile.parse(Data(text.utf8), sourceName: "r.jsonl")
        #expect(f.entries.count == 2)
        #expect(f.bad.count("bad recording line") == 3)
        #expect(f.bad.entries["bad recording line"]?.firstLocation == "r.jsonl:3")
        #expect(throws: RecordingError.self) { try RecordingFile.parse(Data("{\"a\":1}\n".utf8), sourceName: "x") }
        let future = header.replacingOccurrences(of: "\"version\":1", with: "\"version\":9")
        #expect(throws: RecordingError.self) { try RecordingFile.parse(Data(future.utf8), sourceName: "x") }
    }

    @Test func everyEntryKindRoundTrips() throws {
        let o = InputOrigin(kind: .tuio, device: "a:1")
        let entries: [RecordEntry] = [
            .contact(ContactUpdate(origin: o, contactID: -3, phase: .end, position: Vec2(0.1, 0.2), raw: Vec2(1, 2), major: 1e-300, minor: 3, orientation: -0.5, time: 1.0000000001, arrival: 2)),
            .sensor(SensorEvent(tangible: 1, kind: .battery, value: 88, arrival: 3)),
            .presented(PresentedOverlay(overlayID: 7, from: 4.25)),
            .frame(number: 9, time: 5.125), .result(frame: 9, digest: "abc"), .definitions([]),
        ]
        for e in entries {
            #expect(try JSONDecoder().decode(RecordEntry.self, from: RecordCoding.line(e)) == e)
        }
    }

    @Test func fuzzedRecordingLinesNeverCrash() throws {
        var g = SplitMix64(seed: 0x2EC)
        let header = try RecordCoding.line(RecordingHeader(writer: "t", surface: nil))
        let line = Array(try RecordCoding.line(RecordEntry.contact(ContactUpdate(origin: InputOrigin(kind: .json, device: "x"), contactID: 1, phase: .begin, position: .zero, time: 1, arrival: 1))))
        var parsedEntries = 0
        for _ in 0..<2_000 {
            var d = header
            d.append(contentsOf: Mutator.mutate(line, using: &g))
            if let f = try? RecordingFile.parse(d, sourceName: "f") { parsedEntries += f.entries.count; _ = f.frames() }
        }
        #expect(parsedEntries > 0)
    }
}
