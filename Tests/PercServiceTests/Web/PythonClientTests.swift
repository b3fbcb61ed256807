// The Python client (clients/python) in the project's venv against a real `percbridge demo`.
import Foundation
import Testing
import PercTestSupport

@Suite(.serialized) struct PythonClientTests {
    static var script: String { Helper.repo.appendingPathComponent("clients/python/tests/demo_check.py").path }
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: Helper.python)
            && (try? Helper.run(Helper.python, ["-c", "import websockets"]).status) == 0
    }

    /// Runs demo_check.py with the repository's client first on the path; returns its last JSON line.
    static func check(_ args: [String], timeout: Double = 60) async throws -> [String: Any] {
        try parse(try await run(args, timeout: timeout))
    }

    static func run(_ args: [String], timeout: Double) async throws -> Helper.Output {
        try await Helper.runAsync("/usr/bin/env", ["PYTHONPATH=\(Helper.repo.appendingPathComponent("clients/python").path)",
                                                   Helper.python, script] + args, timeout: timeout)
    }

    static func parse(_ out: Helper.Output) throws -> [String: Any] {
        let line = try #require(out.stdout.split(separator: "\n").last, "no output; stderr: \(out.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(out.stdout) \(out.stderr)")
    }

    @Test(.enabled(if: available)) func framesStateChangesAndActuateAgainstTheDemo() async throws {
        // The demo scenario sets PERCs down at 0.5, 4 and 8 s: the client sees one become tracked.
        let demo = try DemoProcess(["--scenario", "demo"])
        defer { demo.stop() }
        let r = try await Self.check(["basic", "ws://\(demo.address)/ws"])
        #expect(r["protocol"] as? Int == 1)
        #expect(r["frames"] as? Int == 30)
        let change = try #require(r["change"] as? [String: Any], "\(r)")
        #expect(change["to"] as? String == "tracked")
        let from = try #require(change["from"] as? String, "a change from a known state")
        #expect(from != "tracked")
        let pose = try #require(change["pose"] as? [Double])
        let surface = try #require(r["surface"] as? [Double])
        #expect(pose[0] > 0 && pose[0] < surface[0] && pose[1] > 0 && pose[1] < surface[1])
        // The actuate reached the demo's PERC (logged as simulated) and a bad one got an error.
        let id = try #require(change["tangible"] as? Int)
        var logged = false
        for _ in 0..<50 where !logged {
            logged = demo.log.contains("actuate (simulated)") && demo.log.contains("tangible=\(id)") && demo.log.contains("green: 255")
            if !logged { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(logged, "demo log: \(demo.log.suffix(2000))")
        #expect((r["errors"] as? [String])?.first?.hasPrefix("unknown-tangible") == true, "\(r)")
        #expect(r["offset_known"] as? Bool == true)
        // Display: the surface fitted into 1920 × 1080 px, centred.
        let display = try #require(r["display"] as? [String: Any])
        let scale = min(1920 / surface[0], 1080 / surface[1])
        let left = (1920 - surface[0] * scale) / 2, top = (1080 - surface[1] * scale) / 2
        #expect(abs((display["scale"] as? Double ?? 0) - scale) < 1e-9)
        #expect(abs((display["left"] as? Double ?? 0) - left) < 1e-9 && abs((display["top"] as? Double ?? 0) - top) < 1e-9)
        let px = try #require(display["px"] as? [Double])
        #expect(abs(px[0] - (left + pose[0] * scale)) < 1e-6 && abs(px[1] - (top + pose[1] * scale)) < 1e-6)
        #expect((display["roundtrip"] as? [Double])?.allSatisfy { abs($0) < 1e-9 } == true)
    }

    @Test(.enabled(if: available)) func aWrongTokenIsRefusedClearlyWithoutRetrying() async throws {
        let demo = try DemoProcess(["--scenario", "single-placement", "--token", "the-right-token-1234"])
        defer { demo.stop() }
        let r = try await Self.check(["token", "ws://\(demo.address)/ws", "not-the-right-token"])
        #expect(r["refused"] as? Bool == true)
        #expect((r["message"] as? String)?.contains("the token is wrong") == true, "\(r)")
        #expect(r["connections"] as? Int == 0)
    }

    @Test(.enabled(if: available)) func aServiceOfAnotherProtocolVersionIsRefusedClearly() async throws {
        let r = try await Self.check(["mismatch"])
        #expect(r["refused"] as? Bool == true)
        #expect((r["message"] as? String)?.contains("the service speaks app protocol 2; this percbridge client speaks 1") == true, "\(r)")
    }

    @Test(.enabled(if: available)) func theClientComesBackWhenTheServiceDoes() async throws {
        var demo = try DemoProcess(["--scenario", "single-placement"])
        let port = demo.port
        defer { demo.stop() }
        let run = Task { try await Self.run(["reconnect", "ws://127.0.0.1:\(port)/ws"], timeout: 90) }
        // Connected once the demo counts an app.
        for _ in 0..<100 {
            if (try? await demo.get("/metrics"))?.contains("percbridge_app_clients 1") == true { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        demo.stop()
        try await Task.sleep(for: .seconds(1))
        demo = try DemoProcess(["--scenario", "single-placement", "--http", "127.0.0.1:\(port)"])
        let r = try Self.parse(try await run.value)
        #expect(r["connections"] as? Int == 2, "\(r)")
        #expect(r["disconnects"] as? Int == 1)
        #expect((r["frame_after"] as? Int).map { $0 >= 0 } == true)
    }
}
