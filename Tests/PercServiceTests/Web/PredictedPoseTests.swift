// The WebSocket `frame` carries `predicted` poses for the look-ahead an app asks for in hello; bad look-aheads are refused.
import Foundation
import Testing
import PercTestSupport

@Suite struct PredictedPoseTests {
    /// `percbridge demo` moves PERC 1 from 6 s on; an app asking for 30 ms gets, for every
    /// tangible with a pose, pose + velocity × 30 ms; one that asks for nothing gets none.
    @Test func framesCarryThePredictedPoseAskedFor() async throws {
        let demo = try await offPool { try DemoProcess(["--scenario", "demo", "--duration", "30"]) }
        defer { demo.stop() }
        try await Task.sleep(for: .seconds(5.8))
        let lines = try await demo.explaining {
            try await WSProbe.runAsync(["port": demo.port, "seconds": 1.2,
                                        "send": [["type": "hello", "protocol": 1, "name": "predict", "predict_ms": 30]]])
        }
        // Frames sent before the service read the hello carry no prediction (the service does
        // not answer a hello, and under load it was read after more than two frames): every
        // frame from the first with a prediction on must carry one.
        let all = WSProbe.messages(lines).filter { $0["type"] as? String == "frame" }
        let first = all.firstIndex { f in (f["tangibles"] as? [[String: Any]] ?? []).contains { $0["predicted"] != nil } } ?? all.endIndex
        let frames = all[first...]
        var checked = 0, moving = 0
        for f in frames {
            for t in f["tangibles"] as? [[String: Any]] ?? [] {
                guard let pose = t["pose"] as? [String: Double] else {
                    #expect(t["predicted"] == nil, "no pose, no prediction")
                    continue
                }
                let p = try #require(t["predicted"] as? [String: Double], "a tangible with a pose has predicted: \(t)")
                let v = try #require(t["velocity"] as? [Double])
                #expect(p["ahead_ms"] == 30)
                #expect(abs(p["x"]! - (pose["x"]! + v[0] * 0.03)) < 1e-6 && abs(p["y"]! - (pose["y"]! + v[1] * 0.03)) < 1e-6)
                checked += 1
                if hypot(v[0], v[1]) > 10 { moving += 1 }
            }
        }
        #expect(checked > 20, "\(checked) tangible poses checked; \(demo.state)")
        #expect(moving > 0, "PERC 1 moves at 80 mm/s from 6 s on")
        let plain = WSProbe.messages(try await demo.explaining { try await WSProbe.runAsync(["port": demo.port, "seconds": 0.6]) }).filter { $0["type"] as? String == "frame" }
        let predictedPlain = plain.flatMap { ($0["tangibles"] as? [[String: Any]]) ?? [] }.filter { $0["predicted"] != nil }
        #expect(!plain.isEmpty && predictedPlain.isEmpty, "an app without predict_ms gets no predicted poses")
    }

    @Test(arguments: [#""30""#, "500", "-1", "2.5", "true"])
    func aBadLookaheadIsRefused(value: String) async throws {
        let demo = try await offPool { try DemoProcess(["--scenario", "single-placement", "--duration", "20"]) }
        defer { demo.stop() }
        let hello = #"{"type": "hello", "protocol": 1, "predict_ms": \#(value)}"#
        let msgs = WSProbe.messages(try await WSProbe.runAsync(["port": demo.port, "seconds": 0.5, "send": [hello]]))
        let error = try #require(msgs.first { $0["type"] as? String == "error" }, "predict_ms \(value) got no error")
        #expect(error["code"] as? String == "invalid")
        #expect(error["in_reply_to"] as? String == "hello")
        #expect((error["message"] as? String ?? "").contains("predict_ms"))
        #expect(msgs.filter { $0["type"] as? String == "frame" }.count >= 1, "the connection stays open")
    }
}
