// Runs the service's web server in-process on an ephemeral loopback port for tests.
import Foundation
import Logging
import MTKTangibles
import ServiceLifecycle
import Synchronization
@testable import PercService
@testable import PercRuntime
@testable import PercWeb
import PercSystem
import PercInput
import PercTestSupport

/// Records what apps sent, as the pipeline would receive it.
final class RecordingSink: AppMessageSink {
    let received = Mutex<[AppInbound]>([])
    func appSent(_ message: AppInbound, raw: Data, from client: AppClient, at arrival: Seconds) -> AppProtocolError? {
        received.withLock { $0.append(message) }
        if case .actuate(let t, _) = message, t != 1 {
            return AppProtocolError(code: .unknownTangible, message: "no tangible \(t)", inReplyTo: "actuate")
        }
        return nil
    }
}

/// A running web server (hub + Hummingbird app) on 127.0.0.1:<port>.
struct TestWebServer {
    let hub: AppHub
    let metrics: ServiceMetrics
    let sink: RecordingSink
    let port: Int
    let task: Task<Void, any Error>

    static func start(token: String = "", maxMessageBytes: Int = 65536, allowedOrigins: [String] = [], maxApps: Int = 64,
                      maxConnections: Int = 1024,
                      logHandler: (any LogHandler)? = nil) async throws -> TestWebServer {
        let metrics = ServiceMetrics()
        let hub = AppHub(context: .init(service: "percbridge test", surface: .init(name: "test", width_mm: 800, height_mm: 450),
                                        frameRateHz: 120, acceptsContacts: true),
                         tangibles: [.standardPerc(id: 1, name: "red")], maxMessageBytes: maxMessageBytes,
                         clock: MonotonicClock.now, onDropped: { metrics.appFramesDropped.increment(by: $0) })
        let sink = RecordingSink()
        hub.setSink(sink)
        var logger = logHandler.map { h in Logger(label: "test-web") { _ in h } } ?? Logger(label: "test-web")
        logger.logLevel = .warning
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = WebServer.make(bind: HostPort(host: "127.0.0.1", port: 0), token: token, hub: hub, metrics: metrics,
                                 logger: logger, allowedOrigins: allowedOrigins, maxApps: maxApps,
                                 maxConnections: maxConnections, onRunning: { continuation.yield($0) })
        let task = Task { try await app.run() }
        var port = 0
        for await p in stream { port = p; break }
        return TestWebServer(hub: hub, metrics: metrics, sink: sink, port: port, task: task)
    }

    func stop() { task.cancel() }

    func get(_ path: String) async throws -> (Int, String) {
        let lines = try await WSProbe.runAsync(["port": port, "path": path, "plain": true])
        return (lines.first.flatMap { Int($0.split(separator: " ")[2]) } ?? 0, lines.joined(separator: "\n"))
    }

    static func snapshot(frame: UInt64, x: Double = 100, padding: Int = 0) -> SurfaceSnapshot {
        var t = TangibleSnapshot(id: 1, name: "red" + String(repeating: "-", count: padding), state: .tracked,
                                 pose: Pose(position: Vec2(x, 200), angle: 0.5), provenance: .confirmed, session: 7)
        t.field = 1; t.light = 0
        return SurfaceSnapshot(frame: frame, time: Double(frame) / 120, tangibles: [t],
                               pointers: [PointerSnapshot(id: 42, position: Vec2(400, 300))])
    }
}
