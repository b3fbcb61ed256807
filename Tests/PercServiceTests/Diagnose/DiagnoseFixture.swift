// Test support: a simulated recording with known faults on disk, and temp files for the CLI tests.
import Foundation
import MTKSimulator

enum DiagnoseFixture {
    /// 120 simulated seconds, two PERCs, 10% notification loss, 15% light misses (made once per run).
    static let session = SimulatedSession.run(seed: 31, duration: 120) { m in
        m.notificationLossProbability = 0.1; m.lightMissProbability = 0.15
    }

    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-diagnose-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Runs `body` with a temp folder holding the session's recording (removed afterwards).
    @discardableResult
    static func withRecording<T>(_ body: (_ dir: URL, _ file: String) async throws -> T) async throws -> T {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        return try await body(dir, try recording(in: dir))
    }

    /// Writes the session's recording into `dir`; returns its path.
    static func recording(in dir: URL, name: String = "session.jsonl") throws -> String {
        let path = dir.appendingPathComponent(name).path
        try session.recordingText().write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
