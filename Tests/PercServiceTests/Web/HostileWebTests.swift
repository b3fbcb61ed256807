// Origin and Host checks and the app cap, through the real web server and a raw WebSocket client.
import Foundation
import Testing
@testable import PercRuntime
import PercTestSupport

@Suite(.serialized) struct HostileWebTests {
    static let evil = "http://evil.example"

    /// A browser page from another site must not read frames, send contacts or actuate.
    @Test func aForeignOriginIsRefusedOnEveryRouteAndLogged() async throws {
        let log = CapturedLog()
        let server = try await TestWebServer.start(logHandler: log)
        defer { server.stop() }
        for path in ["/", "/metrics", "/api/state", "/ws"] {
            let lines = try await WSProbe.runAsync(["port": server.port, "path": path, "plain": true, "headers": ["Origin": Self.evil]])
            #expect(lines.first?.contains(" 403 ") == true, "GET \(path) from a foreign origin: \(lines.first ?? "")")
        }
        // The JavaScript clients are public (any page may import them); they carry no state.
        for path in ["/percbridge.js", "/viewer.js"] {
            let lines = try await WSProbe.runAsync(["port": server.port, "path": path, "plain": true, "headers": ["Origin": Self.evil]])
            #expect(lines.first?.contains(" 200 ") == true, "GET \(path) from a foreign origin: \(lines.first ?? "")")
        }
        // Pages opened from disk and sandboxed frames of any site send `Origin: null`.
        let null = try await WSProbe.runAsync(["port": server.port, "seconds": 0.3, "headers": ["Origin": "null"]])
        #expect(null.first?.contains(" 403 ") == true, "upgrade from Origin null: \(null.prefix(1))")
        let ws = try await WSProbe.runAsync(["port": server.port, "seconds": 1.0, "headers": ["Origin": Self.evil],
                                             "send": ["{\"type\": \"actuate\", \"tangible\": 1, \"vibrate_ms\": 100}"]])
        #expect(ws.first?.contains(" 403 ") == true, "upgrade from a foreign origin: \(ws)")
        #expect(ws.contains { $0.contains("http.allowed_origins") }, "the refusal says what to configure: \(ws)")
        #expect(!ws.contains { $0.contains("hello") })
        #expect(server.sink.received.withLock { $0.isEmpty }, "nothing of the page reached the service")
        #expect(server.hub.clientCount == 0)
        #expect(log.lines.contains { $0.contains("Origin http://evil.example") && $0.contains("403") }, "\(log.lines)")
        // Six refusals within a second: fewer log lines (rate-limited), all counted.
        #expect(log.lines.filter { $0.contains("refused") }.count < 6)
        #expect(server.metrics.exposition().contains("percbridge_http_refused_total{reason=\"origin\"} 6"),
                "\(server.metrics.exposition().split(separator: "\n").filter { $0.contains("refused") })")
    }

    @Test func theViewersOwnOriginAllowedOriginsAndNativeAppsAreServed() async throws {
        let server = try await TestWebServer.start(allowedOrigins: ["http://table.example:3000/", "null"])
        defer { server.stop() }
        let p = server.port
        let allowed: [[String: Any]] = [
            ["host": "127.0.0.1:\(p)", "headers": ["Origin": "http://127.0.0.1:\(p)"]],
            ["host": "localhost:\(p)", "headers": ["Origin": "http://localhost:\(p)"]],
            ["host": "[::1]:\(p)", "headers": ["Origin": "http://[::1]:\(p)"]],
            ["host": "127.0.0.1:\(p)", "headers": ["Origin": "http://TABLE.example:3000"]],
            ["host": "127.0.0.1:\(p)", "headers": ["Origin": "null"]],  // allowed_origins has "null"
            ["host": "127.0.0.1:\(p)"],  // a native app: no Origin
        ]
        for a in allowed {
            var args = a
            args["port"] = p; args["seconds"] = 0.3; args["max"] = 1
            let lines = try await WSProbe.runAsync(args)
            #expect(lines.first?.contains(" 101 ") == true && lines.contains { $0.contains("\"hello\"") }, "\(a): \(lines.prefix(2))")
        }
        // Another port of the same host is another origin.
        let other = try await WSProbe.runAsync(["port": p, "seconds": 0.3, "host": "127.0.0.1:\(p)",
                                                "headers": ["Origin": "http://127.0.0.1:\(p + 1)"]])
        #expect(other.first?.contains(" 403 ") == true, "\(other.prefix(1))")
        let page = try await WSProbe.runAsync(["port": p, "path": "/", "plain": true, "host": "localhost:\(p)",
                                               "headers": ["Origin": "http://localhost:\(p)"]])
        #expect(page.first?.contains(" 200 ") == true)
    }

    /// With a token, an upgrade without it gets 401 and the reason (not hummingbird's bare 400).
    @Test func anUpgradeWithoutTheTokenGets401WithTheReason() async throws {
        let server = try await TestWebServer.start(token: "0123456789abcdef-token")
        defer { server.stop() }
        let no = try await WSProbe.runAsync(["port": server.port, "seconds": 0.5])
        #expect(no.first?.contains(" 401 ") == true, "\(no)")
        #expect(no.contains { $0.contains("?token=") }, "\(no)")
        let wrong = try await WSProbe.runAsync(["port": server.port, "seconds": 0.5, "path": "/ws?token=wrong"])
        #expect(wrong.first?.contains(" 401 ") == true, "\(wrong)")
        let bearer = try await WSProbe.runAsync(["port": server.port, "seconds": 0.5, "max": 1,
                                                 "headers": ["Authorization": "Bearer 0123456789abcdef-token"]])
        #expect(bearer.contains { $0.contains("\"hello\"") }, "\(bearer.prefix(2))")
        let query = try await WSProbe.runAsync(["port": server.port, "seconds": 0.5, "max": 1, "path": "/ws?token=0123456789abcdef-token"])
        #expect(query.contains { $0.contains("\"hello\"") }, "\(query.prefix(2))")
        #expect(server.hub.clientCount <= 2)
    }

    /// Connections held open (half-sent requests) beyond `max_connections` wait in the backlog
    /// instead of using up descriptors; the bound is logged and counted; closing frees places.
    @Test func connectionsBeyondMaxConnectionsWaitAndAreCounted() async throws {
        let log = CapturedLog()
        let server = try await TestWebServer.start(maxConnections: 16, logHandler: log)
        defer { server.stop() }
        let script = """
            import socket, sys, time
            port = int(sys.argv[1])
            held = [socket.create_connection(("127.0.0.1", port)) for _ in range(16)]
            for s in held: s.sendall(b"GET /metrics HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n")  # never finished
            time.sleep(0.5)
            late = socket.create_connection(("127.0.0.1", port)); late.settimeout(1.5)
            late.sendall(b"GET /api/state HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n")
            try: print("while full:", late.recv(100)[:12])
            except socket.timeout: print("while full: waiting")
            for s in held: s.close()
            late.settimeout(5)
            print("after:", late.recv(100)[:12])
            """
        let out = try await Helper.runAsync(WSProbe.python, ["-c", script, String(server.port)], timeout: 30)
        #expect(out.stdout.contains("while full: waiting"), "\(out.stdout) \(out.stderr)")
        #expect(out.stdout.contains("after: b'HTTP/1.1 200'"), "\(out.stdout) \(out.stderr)")
        // Counted each time the bound is reached (once full, and again when the waiting one got in).
        #expect(server.metrics.exposition().contains("percbridge_input_dropped_total{reason=\"max_connections\"}"))
        #expect(log.lines.contains { $0.contains("http.max_connections") }, "\(log.lines)")
    }

    /// `["*"]` lets every page in, and the service says so when it starts.
    @Test func allowingEveryOriginIsWarnedAbout() async throws {
        let log = CapturedLog()
        let server = try await TestWebServer.start(allowedOrigins: ["*"], logHandler: log)
        defer { server.stop() }
        #expect(log.lines.contains { $0.contains("every web page") }, "\(log.lines)")
        let lines = try await WSProbe.runAsync(["port": server.port, "seconds": 0.3, "max": 1, "headers": ["Origin": Self.evil]])
        #expect(lines.contains { $0.contains("\"hello\"") }, "\(lines.prefix(2))")
    }

    /// DNS rebinding: the page's name resolves to 127.0.0.1, but the browser sends that name as Host.
    @Test func aForeignHostIsRefusedOnALoopbackBind() async throws {
        let server = try await TestWebServer.start()
        defer { server.stop() }
        let p = server.port
        for host in ["evil.example:\(p)", "evil.example", "127.0.0.1.evil.example:\(p)", "localhost.evil.example",
                     "[::2]:\(p)", "[::1]x", "256.0.0.1:\(p)"] {
            for path in ["/", "/metrics"] {
                let lines = try await WSProbe.runAsync(["port": p, "path": path, "plain": true, "host": host])
                #expect(lines.first?.contains(" 403 ") == true, "Host \(host) \(path): \(lines.first ?? "")")
            }
        }
        let ws = try await WSProbe.runAsync(["port": p, "seconds": 0.3, "host": "evil.example:\(p)"])
        #expect(ws.first?.contains(" 403 ") == true)
        for host in ["127.0.0.1:\(p)", "127.3.4.5", "localhost", "app.localhost:\(p)", "[::1]:\(p)", "[::1]"] {
            let lines = try await WSProbe.runAsync(["port": p, "path": "/metrics", "plain": true, "host": host])
            #expect(lines.first?.contains(" 200 ") == true, "Host \(host): \(lines.first ?? "")")
        }
        #expect(server.metrics.exposition().contains("percbridge_http_refused_total{reason=\"host\"} 15"))
    }

    /// The app after `max_apps` is told why and closed; the others keep getting frames, and
    /// a place freed is taken again.
    @Test func appsOverMaxAppsAreClosedWithAReason() async throws {
        let log = CapturedLog()
        let server = try await TestWebServer.start(maxApps: 4, logHandler: log)
        defer { server.stop() }
        var held: [(Process, Pipe)] = []
        defer { for (p, _) in held { WSProbe.end(p) } }
        for _ in 0..<4 { held.append(try WSProbe.start(["port": server.port, "seconds": 15, "max": 2])) }
        #expect(await eventually(10) { server.hub.clientCount == 4 })
        let refused = try await WSProbe.runAsync(["port": server.port, "seconds": 3.0])
        #expect(refused.contains("CLOSE 1013 percbridge: too many apps (http.max_apps = 4)"), "\(refused)")
        #expect(!refused.contains { $0.contains("\"hello\"") })
        #expect(server.hub.clientCount == 4)
        #expect(server.metrics.exposition().contains("percbridge_input_dropped_total{reason=\"max_apps\"} 1"))
        #expect(log.lines.contains { $0.contains("http.max_apps") })
        server.hub.publish(FrameResult(snapshot: TestWebServer.snapshot(frame: 11), overlay: nil))
        for (p, out) in held {
            let data = try await offPool { let d = out.fileHandleForReading.readDataToEndOfFile(); p.waitUntilExit(); return d }
            let msgs = WSProbe.messages(String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init))
            #expect(msgs.contains { $0["type"] as? String == "frame" && $0["frame"] as? Int == 11 })
        }
        #expect(await eventually(10) { server.hub.clientCount == 0 })
        let again = try await WSProbe.runAsync(["port": server.port, "seconds": 0.3, "max": 1])
        #expect(again.contains { $0.contains("\"hello\"") })
    }
    /// An app that breaks off its session (a reset connection, a frame the WebSocket layer
    /// refuses) while nothing is being sent to it must not keep its session: before, the
    /// session's writer went on waiting for the next frame, so on an idle table the app's slot
    /// (`http.max_apps`) stayed taken, and a stop waited for it for ever.
    @Test func anAppThatBreaksOffWhileNothingIsSentLeavesAtOnce() async throws {
        let server = try await TestWebServer.start(maxApps: 8)
        defer { server.stop() }
        let breaks: [[String: Any]] = [
            ["reset": true],
            // An unmasked text frame (a client must mask), then one of reserved opcode 3.
            ["raw_hex": "810568656c6c6f"],
            ["raw_hex": "8380aabbccdd"],
            // A frame that says it is 1 GiB long.
            ["raw_hex": "81ff0000000040000000aabbccdd"],
        ]
        for b in breaks {
            let lines = try await WSProbe.runAsync(["port": server.port, "send": [b], "seconds": 1.0])
            #expect(lines.first == "HTTP HTTP/1.1 101 Switching Protocols", "\(b): \(lines)")
            let gone = await eventually(3) { server.hub.clientCount == 0 }
            print("an app that sent \(b) and left: \(server.hub.clientCount) sessions held afterwards")
            #expect(gone, "\(b): \(server.hub.clientCount) sessions still held")
        }
        // The slots are free: an app still gets its hello.
        let again = try await WSProbe.runAsync(["port": server.port, "seconds": 0.3, "max": 1])
        #expect(again.contains { $0.contains("\"hello\"") })
    }
}

