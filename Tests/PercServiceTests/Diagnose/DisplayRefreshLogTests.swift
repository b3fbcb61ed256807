// The running service says when the display refreshes at another rate than the light checks are told.
import Foundation
import Testing
import PercTestSupport

@Suite struct DisplayRefreshLogTests {
    /// Two PERCs set down on two markers every 1.6 s (their checks keep overlays coming).
    static func scenario(hardware: String) -> String {
        var steps: [String] = []
        var t = 0.5
        for i in 0..<14 {
            steps.append(#"{"at": \#(t), "place": {"tangible": 1, "position": [250, 250], "angle": \#(0.3 * Double(i)), "touches": [0, 1]}}"#)
            steps.append(#"{"at": \#(t + 0.2), "place": {"tangible": 2, "position": [550, 250], "angle": \#(0.3 * Double(i)), "touches": [0, 1]}}"#)
            t += 1.2
            steps.append(#"{"at": \#(t), "lift": {"tangible": 1}}"#)
            steps.append(#"{"at": \#(t), "lift": {"tangible": 2}}"#)
            t += 0.4
        }
        return #"{"name": "refresh", "seed": 5, "surface": [800, 500], "background": "black", "duration": 25, "loop": false, "hardware": \#(hardware), "#
            + #""tangibles": [{"id": 1, "name": "PERC A"}, {"id": 2, "name": "PERC B"}], "steps": [\#(steps.joined(separator: ", "))]}"#
    }

    func run(hardware: String, seconds: Double) async throws -> (log: String, refreshHz: Double?) {
        let tmp = try TempDir("pb-refresh")
        let file = tmp.url.appendingPathComponent("refresh.json")
        try Self.scenario(hardware: hardware).write(to: file, atomically: true, encoding: .utf8)
        let demo = try DemoProcess(["--scenario", file.path, "--duration", "\(Int(seconds) + 5)"])
        defer { demo.stop() }
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, !demo.log.contains("light_checks.display_refresh_hz is") {
            try await Task.sleep(for: .milliseconds(200))
        }
        try await Task.sleep(for: .seconds(1))
        // The live report carries the measured refresh too (GET /diagnostics).
        let json = try await demo.get("/diagnostics")
        let report = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let hz = (report?["display"] as? [String: Any])?["refreshHz"] as? Double
        // And /metrics, as a gauge.
        let metrics = try await demo.get("/metrics")
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("percbridge_diagnose_display_refresh_hertz ") }.map(String.init)
        let gauge: Double? = line.flatMap { l in l.split(separator: " ").last.flatMap { Double($0) } }
        let measured: Double = hz ?? -1
        let same: Bool = gauge.map { abs($0 - measured) < 0.01 } ?? false
        #expect(same, "\(line ?? "no gauge") against \(measured)")
        return (demo.log, hz)
    }

    /// On a simulated 120 Hz display the demo (a service told nothing: 60 Hz) logs, once,
    /// the measured refresh and what to set; on the model's 60 Hz display it says nothing.
    @Test func aFasterDisplayIsNamedOnceInTheLog() async throws {
        let (fast, fastHz) = try await run(hardware: #"{"displayFrameRate": 120}"#, seconds: 20)
        #expect(fast.contains("overlays are presented on a 120.0 Hz refresh (8.33 ms, "), "\(fast)")
        #expect(fast.contains("but light_checks.display_refresh_hz is 60: ") && fast.contains("set display_refresh_hz = 120 (percbridge diagnose --apply CONFIG writes it)"), "\(fast)")
        #expect(fast.components(separatedBy: "presented on a 120.0 Hz refresh").count == 2, "once: \(fast)")
        #expect(fastHz.map { abs($0 - 120) < 0.5 } == true, "\(String(describing: fastHz))")
        let (model, modelHz) = try await run(hardware: "{}", seconds: 8)
        #expect(modelHz.map { abs($0 - 60) < 0.5 } == true, "measured, and as told: \(String(describing: modelHz))")
        #expect(!model.contains("display_refresh_hz is"), "\(model)")
    }
}
