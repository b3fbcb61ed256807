// `bench soak`: WebSocket apps that come and go all through the run, each reading every frame for a few seconds.
import Foundation
import MTKTangibles
import Synchronization
import PercSystem

/// `count` apps, each connected for `lifetime` seconds and then closed and replaced by a new
/// one at once, so serve's app hub registers and drops apps all through the run. Every
/// fourth says hello with `draws_overlay`, so serve's drawing observer runs each time one
/// of those comes or goes (the drawing app keeps light checks on meanwhile). Each app is a
/// `BenchWSClients` of one reader, closed on its own.
final class SoakApps: Sendable {
    /// Below serve's `[http] max_apps` (64) with the drawing app and apps still closing.
    static let maxApps = 60
    static let lifetime: ClosedRange<Double> = 2...8
    static let drawingHello = #"{"type":"hello","protocol":1,"name":"percbridge-bench soak (churn)","draws_overlay":true}"#

    struct Counts: Sendable {
        var opened = 0
        var closed = 0
        /// Connections serve refused or that failed to open.
        var failed = 0
    }

    private struct Slot {
        var app: BenchWSClients?
        var until: Seconds
    }

    private let port: Int
    private let slots: Mutex<[Slot]>
    private let tally = Mutex(Counts())
    private let opened = Atomic<Int>(0)
    private let loop = Mutex<Task<Void, Never>?>(nil)

    private init(port: Int, count: Int) {
        self.port = port
        // Remaining lifetimes spread over the first lifetime, so the apps do not leave in step.
        let now = MonotonicClock.now()
        slots = Mutex((0..<count).map { _ in Slot(app: nil, until: now + Double.random(in: 0...Self.lifetime.upperBound)) })
    }

    /// Connects the first apps and keeps replacing them until `stop()`.
    static func start(port: Int, count: Int) async -> SoakApps {
        let apps = SoakApps(port: port, count: count)
        for i in 0..<count { await apps.open(slot: i, until: apps.slots.withLock { $0[i].until }) }
        apps.loop.withLock { $0 = Task { await apps.churn() } }
        return apps
    }

    var counts: Counts { tally.withLock { $0 } }

    func stop() async {
        let task = loop.withLock { t -> Task<Void, Never>? in defer { t = nil }; return t }
        task?.cancel()
        await task?.value
        let all = slots.withLock { s -> [BenchWSClients] in defer { s = [] }; return s.compactMap(\.app) }
        for app in all { await app.close() }
    }

    private func churn() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(100))
            let now = MonotonicClock.now()
            let due = slots.withLock { s in s.indices.filter { s[$0].until <= now } }
            for i in due where !Task.isCancelled {
                let old = slots.withLock { s -> BenchWSClients? in defer { s[i].app = nil }; return s[i].app }
                if let old {
                    await old.close()
                    tally.withLock { $0.closed += 1 }
                }
                await open(slot: i, until: MonotonicClock.now() + Double.random(in: Self.lifetime))
            }
        }
    }

    private func open(slot i: Int, until: Seconds) async {
        let n = opened.wrappingAdd(1, ordering: .relaxed).oldValue
        do {
            let app = try await BenchWSClients.connect(port: port, readers: 1, stalled: false, hello: n % 4 == 0 ? Self.drawingHello : nil)
            slots.withLock { $0[i] = Slot(app: app, until: until) }
            tally.withLock { $0.opened += 1 }
        } catch {
            // Tried again when the slot is next due (serve may be between two apps' closes).
            slots.withLock { $0[i] = Slot(app: nil, until: MonotonicClock.now() + 1) }
            tally.withLock { $0.failed += 1 }
        }
    }
}
