// `bench soak`: the one app that draws — hello with draws_overlay, and presented reports for the overlay it shows, as the web viewer sends them.
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import PercSystem

/// Says `draws_overlay` in its hello, so serve runs light checks, and reports each overlay
/// presented as soon as it gets it (clients/js/percbridge.js does so from the animation frame
/// that drew it). A display shows the overlay again at every refresh, so while patches are
/// up it reports the same overlay presented again with each frame it gets: serve's
/// presented-report path runs every frame while a light check runs, and a repeated report
/// changes nothing for the check (LightCheck takes the first). The service clock under
/// `serve` is this host's CLOCK_MONOTONIC, so `time` is read here, not mapped by ping/pong.
final class SoakDrawingApp: Sendable {
    struct Counts: Sendable {
        /// Frames it got (latest wins: fewer than serve cut when it reads slower).
        var frames = 0
        var overlays = 0
        var presented = 0
        /// `error` messages from serve (a presented report it refused, say).
        var errors = 0
        /// Times serve closed the connection (the app connects again at once).
        var closedByServe = 0
    }

    private struct State {
        var counts = Counts()
        var overlay: UInt64?
        var patches = 0
        var upgraded = false
    }

    private let state = Mutex(State())
    private let channel = Mutex<(any Channel)?>(nil)
    private let port: Int
    private let closing = Atomic<Bool>(false)

    private init(port: Int) { self.port = port }

    static let hello = #"{"type":"hello","protocol":1,"name":"percbridge-bench soak (draws)","draws_overlay":true}"#

    static func connect(port: Int) async throws -> SoakDrawingApp {
        let app = SoakDrawingApp(port: port)
        try await app.open()
        let deadline = MonotonicClock.now() + 10
        while !app.state.withLock({ $0.upgraded }), MonotonicClock.now() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        guard app.state.withLock({ $0.upgraded }) else {
            await app.close()
            throw BenchFailure("the drawing app's WebSocket upgrade was not answered within 10 s")
        }
        return app
    }

    var counts: Counts { state.withLock { $0.counts } }

    func close() async {
        closing.store(true, ordering: .releasing)
        let ch = channel.withLock { c -> (any Channel)? in defer { c = nil }; return c }
        try? await ch?.close()
    }

    private func open() async throws {
        let ch = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(BenchWSReader(port: port, answer: { self.answer($0) }) { _ in })
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        channel.withLock { $0 = ch }
        if closing.load(ordering: .acquiring) { await close() }  // a reconnect that raced `close()`
    }

    /// serve closed the connection: counted (the soak fails on it: the presented path went
    /// quiet), and the app comes back as a viewer page that reconnects would.
    private func closedByServe() {
        guard !closing.load(ordering: .acquiring) else { return }
        state.withLock { s in
            s.counts.closedByServe += 1
            s.overlay = nil
            s.patches = 0
        }
        Task { try? await open() }
    }

    /// What the app sends back for each thing it gets (on its channel's event loop).
    private func answer(_ event: BenchWSReader.Event) -> [String] {
        state.withLock { s in
            switch event {
            case .upgraded:
                s.upgraded = true
                return [Self.hello]
            case .message(let type, let overlay, let patches):
                if type == "error" { s.counts.errors += 1 }
                guard type == "overlay", let overlay else { return [] }
                s.counts.overlays += 1
                s.overlay = overlay
                s.patches = patches
                return [Self.presented(overlay, &s.counts)]
            case .frame:
                s.counts.frames += 1
                guard s.patches > 0, let overlay = s.overlay else { return [] }
                return [Self.presented(overlay, &s.counts)]
            case .closed:
                closedByServe()
                return []
            case .pointers:
                return []
            }
        }
    }

    private static func presented(_ overlay: UInt64, _ counts: inout Counts) -> String {
        counts.presented += 1
        let now = MonotonicClock.now()
        return #"{"type":"presented","overlay":\#(overlay),"time":\#(now),"app_time":\#(now)}"#
    }
}
