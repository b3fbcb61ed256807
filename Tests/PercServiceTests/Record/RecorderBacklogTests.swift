// The recorder's writer queue: entries come out complete and in order, also when the backlog bound makes callers wait.
import Foundation
import MTKTangibles
import Testing
@testable import PercRuntime

@Suite struct RecorderBacklogTests {
    @Test(arguments: [4, 65536])
    func everyEntryIsWrittenInOrder(maxBacklog: Int) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pb-rec-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try Recorder(path: path, header: RecordingHeader(writer: "test", surface: Vec2(100, 100)), maxBacklog: maxBacklog)
        let count = 5000
        for i in 0..<count {
            recorder.recordFrame(Frame(number: UInt64(i), time: Double(i) / 1000))
            if i % 100 == 0 { recorder.record(result: "digest\(i)", frame: UInt64(i)) }
        }
        recorder.close()
        recorder.recordFrame(Frame(number: 99_999, time: 99))  // after close: not written, no crash
        #expect(recorder.entryCount == count + count / 100)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1 + count + count / 100, "header + every entry")
        let frames = lines.compactMap { try? JSONDecoder().decode(RecordEntry.self, from: Data($0.utf8)) }.compactMap { e -> UInt64? in
            if case .frame(let n, _, _) = e { return n } else { return nil }
        }
        #expect(frames == (0..<UInt64(count)).map { $0 }, "frames in the order recorded")
    }
}
