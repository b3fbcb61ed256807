// A service whose first WebSocket frames come in the same read as its 101 response (as a
// loaded machine delivers them): the overlay must hear them. NIO's HTTP client pipeline drops
// the bytes after the response head unless told to forward them (swift-nio#741); the overlay
// then never learnt the surface and drew nothing (OverlayMappingTests failed 5 runs in 10).
import Foundation
import Logging
import Synchronization
import Testing
import PercOverlayClient

@Suite struct FirstFramesTests {
    final class Recorder: OverlayDisplay {
        let shows = Mutex<[[ScreenDisc]]>([])
        func show(_ discs: [ScreenDisc], serial: UInt64) { shows.withLock { $0.append(discs) } }
    }

    /// One connection: reads the upgrade request, then sends the 101 response and the service's
    /// hello, drawing and overlay messages with a single sendall, and keeps the socket open.
    static let server = #"""
    import base64, hashlib, socket, struct, sys, time
    s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
    print(s.getsockname()[1], flush=True)
    c, _ = s.accept()
    req = b""
    while b"\r\n\r\n" not in req:
        req += c.recv(4096)
    key = [l.split(b":", 1)[1].strip() for l in req.split(b"\r\n") if l.lower().startswith(b"sec-websocket-key:")][0]
    accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
    def frame(text):
        b = text.encode()
        return bytes([0x81, len(b)]) + b if len(b) < 126 else bytes([0x81, 126]) + struct.pack(">H", len(b)) + b
    out = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n"
    out += frame('{"type":"hello","protocol":1,"service":"first-frames test","surface":{"width_mm":800,"height_mm":400}}')
    out += frame('{"type":"drawing","draws":true}')
    out += frame('{"type":"overlay","overlay":5,"patches":[{"id":1,"x":400,"y":200,"radius":4,"colour":"white"}]}')
    c.sendall(out)
    time.sleep(10)
    """#

    @Test func framesInTheSameReadAsThe101AreHeard() async throws {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", Self.server]
        let out = Pipe()
        python.standardOutput = out
        try python.run()
        defer { if python.isRunning { kill(python.processIdentifier, SIGKILL) }; python.waitUntilExit() }
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let port = try #require(Int(line.trimmingCharacters(in: .whitespacesAndNewlines)), "the test server said \(line)")

        let recorder = Recorder()
        let endpoint = try ServiceEndpoint.parse("ws://127.0.0.1:\(port)/ws").get()
        let placement = OverlaySession.Placement(originX: 0, originY: 0, width: 1600, height: 800, rotation: 0)
        let client = OverlayClient(endpoint: endpoint, session: OverlaySession(placement: placement), display: recorder,
                                   logger: Logger(label: "first-frames-test"))
        let run = Task { await client.run() }
        defer { run.cancel() }
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, !recorder.shows.withLock({ $0.contains { !$0.isEmpty } }) { try await Task.sleep(for: .milliseconds(20)) }
        let shown = recorder.shows.withLock { $0 }.first { !$0.isEmpty }
        #expect(shown == [ScreenDisc(x: 800, y: 400, radius: 8, white: true)],
                "the hello, drawing and overlay sent with the 101 were not all heard: shows \(recorder.shows.withLock { $0 })")
    }
}
