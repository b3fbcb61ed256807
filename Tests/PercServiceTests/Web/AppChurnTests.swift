// Apps that come and go leave nothing behind in serve's heap (issue 36: ~740 B per app that ever connected).
import Foundation
import Testing
import PercTestSupport

/// Before: hummingbird-websocket's `router.ws` kept each connection's request context in a
/// reference cycle (its handler box held the context that held the box), so every WebSocket
/// app that ever connected cost about 740 bytes of heap for as long as serve ran; a table
/// whose apps reconnect all day grew without end. serve decides upgrades with a closure now.
@Suite(.serialized) struct AppChurnTests {
    /// Connects `count` apps one after another: each completes the upgrade, sends a close frame
    /// and waits for the server to close. Prints how many were upgraded.
    static let churn = #"""
import base64, os, socket, struct, sys
port, count = int(sys.argv[1]), int(sys.argv[2])
upgraded = 0
for i in range(count):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(4096)
        if not chunk: break
        head += chunk
    if b" 101 " in head.split(b"\r\n")[0]:
        upgraded += 1
    mask = os.urandom(4)
    payload = struct.pack(">H", 1000)
    s.sendall(bytes([0x88, 0x80 | len(payload)]) + mask + bytes(b ^ mask[j % 4] for j, b in enumerate(payload)))
    try:
        while s.recv(65536): pass
    except OSError:
        pass
    s.close()
print(upgraded, flush=True)
"""#

    func churn(_ serve: ServeProcess, _ count: Int) async throws -> Int {
        let r = try await Helper.runAsync(Helper.python, ["-c", Self.churn, "\(serve.httpPort)", "\(count)"])
        #expect(r.status == 0, "\(r.stderr)")
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The heap in use once the apps' ping timers (1 s here) have run out: a closed app's
    /// pending ping sleep is freed only at its deadline (Swift runtime).
    func settledHeap(_ serve: ServeProcess) async throws -> Double {
        try await Task.sleep(for: .milliseconds(2500))
        return try #require(try await serve.metric("percbridge_heap_bytes_in_use"))
    }

    @Test func appsThatComeAndGoLeaveTheHeapFlat() async throws {
        let tmp = try TempDir("pb-app-churn")
        let serve = try ServeProcess.touchesOnly(in: tmp, http: ["ping_interval_s = 1"], logLevel: "warning")
        #expect(await eventually(15) { (try? await serve.metric("percbridge_app_clients")) != nil }, "\(serve.log)")
        #expect(try await churn(serve, 300) == 300, "warm-up: every app was upgraded")
        let before = try await settledHeap(serve)
        let apps = 1500
        #expect(try await churn(serve, apps) == apps, "every app was upgraded")
        let after = try await settledHeap(serve)
        let perApp = (after - before) / Double(apps)
        // Old code: ~740 B per app (1.1 MB over these 1,500); now ~10 B.
        print("AppChurnTests: serve's heap grew \(Int(after - before)) B over \(apps) apps (\(String(format: "%.1f", perApp)) B each)")
        #expect(perApp < 200, "serve's heap grew \(Int(after - before)) B over \(apps) apps: \(Int(perApp)) B each")
        #expect(try await serve.metric("percbridge_app_clients") == 0, "every app was let go")
        // Only /ws upgrades: an upgrade asked for on any other path is answered by the HTTP routes.
        for path in ["/metrics", "/ws/x", "/"] {
            let other = try await WSProbe.runAsync(["port": serve.httpPort, "path": path, "seconds": 0.5])
            #expect(other.first?.hasPrefix("HTTP ") == true && other.first?.contains(" 101 ") == false, "\(path): \(other)")
        }
        #expect(try await serve.terminate() == 0)
    }
}
