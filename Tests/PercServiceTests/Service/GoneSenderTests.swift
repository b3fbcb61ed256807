// A sender that goes away with contacts down (an app, a JSON forwarder) leaves no touch behind in serve (issue 36).
import Foundation
import MTKTangibles
import Testing
import PercTestSupport

/// Before: the contacts of an app or a JSON TCP forwarder that disconnected stayed live
/// traces for as long as `serve` ran — in every frame, every TUIO bundle and every app's
/// frame, costing more each time one went away.
@Suite(.serialized) struct GoneSenderTests {
    @Test func contactsOfAnAppOrAForwarderThatWentAwayEnd() async throws {
        let tmp = try TempDir("pb-gone-sender")
        let jsonPort = TUIOPeers.freeUDPPort()
        let serve = try ServeProcess.touchesOnly(in: tmp, inputs: """
            [[input]]
            kind = "json-tcp"
            listen = "127.0.0.1:\(jsonPort)"
            """, http: ["accept_contacts = true"])
        #expect(await serve.waitForLog("web viewer", seconds: 15), "\(serve.log)")

        // An app puts two fingers down and disconnects while they are down.
        let app = try await WSProbe.runAsync(["port": serve.httpPort, "seconds": 1.0, "send": [
            "{\"type\": \"hello\", \"protocol\": 1, \"name\": \"finger app\"}",
            "{\"type\": \"contacts\", \"contacts\": [{\"id\": 4, \"phase\": \"begin\", \"x\": 100, \"y\": 200}, {\"id\": 5, \"phase\": \"begin\", \"x\": 300, \"y\": 200}]}",
        ]])
        let frames = WSProbe.messages(app).filter { $0["type"] as? String == "frame" }
        #expect(frames.contains { ($0["pointers"] as? [Any])?.count == 2 }, "the app's two fingers were on the surface: \(frames.suffix(2))")
        #expect(await eventually(5) { (try? await serve.pointers()) == 0 }, "they end when the app goes")
        #expect(await serve.waitForLog("app went away with 2 contacts down"), "\(serve.log)")

        // A JSON forwarder (the MTK feed over TCP) does the same and closes its connection.
        let script = """
        import socket, sys, time, json
        t = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        t.sendall(json.dumps({"Touches": [{"traceID": 9, "state": "beginning", "position": [400, 100]}]}).encode())
        time.sleep(0.3)
        print("down", flush=True)
        time.sleep(0.7)
        t.close()
        """
        let forwarder = Task { try await Helper.runAsync(Helper.python, ["-c", script, "\(jsonPort)"]) }
        #expect(await eventually(5) { (try? await serve.pointers()) == 1 }, "the forwarder's finger is down")
        let r = try await forwarder.value
        #expect(r.status == 0, "\(r.stderr)")
        #expect(await eventually(5) { (try? await serve.pointers()) == 0 }, "and ends when its connection closes")
        // The frame thread's own CPU time is counted (FrameLoad; docs/install.md).
        #expect(try await serve.metric("percbridge_frame_thread_cpu_seconds_total") ?? 0 > 0)
        #expect(try await serve.metric("percbridge_frame_overruns_total") != nil)
        // Events the engine sent to a PERC state that cannot get them: none.
        #expect(try await serve.metric("percbridge_engine_bugs_total") == 0)
        #expect(try await serve.terminate() == 0)
    }
}
