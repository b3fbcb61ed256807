// `serve`'s frame loop and housekeeping: frame clock ticks, inputs, BlueZ links, SIGHUP reload, sd_notify.
import Foundation
import Logging
import MTKTangibles
import ServiceLifecycle
import Synchronization
import UnixSignals
import PercSystem
import PercInput
import PercRuntime

/// Runs the frame clock (its ticker thread cuts frames into the pipeline), the input
/// sources, the PERC links, the systemd watchdog and status, and reloads the registry on
/// SIGHUP.
public final class ServeLoop: Service {
    private let parts: ServiceParts
    private let inputs: [any InputSource]
    private let store: RegistryStore
    let links: ServiceLinks
    private let recording: ServeRecording?
    private let logger: Logger
    /// Registry changes wait here for the next frame boundary, so the engine switches
    /// definitions between two frames, exactly where a recording says it did.
    /// (A struct, not a tuple: a closure in a tuple kept in a `Mutex` is re-wrapped on every
    /// access — `CallbackSlot` says why.)
    private let pendingDefinitions = Mutex<PendingDefinitions?>(nil)
    private struct PendingDefinitions: Sendable {
        let definitions: [TangibleDefinition]
        let then: @Sendable () -> Void
    }

    public init(parts: ServiceParts, inputs: [any InputSource], store: RegistryStore, links: ServiceLinks,
         recording: ServeRecording?, logger: Logger) {
        self.parts = parts; self.inputs = inputs; self.store = store; self.links = links
        self.recording = recording; self.logger = logger
    }

    public func run() async throws {
        let pipeline = parts.pipeline
        let recording = recording
        let hub = parts.hub
        links.observeRegistry { [self] registry, thenFollow in
            pendingDefinitions.withLock { $0 = PendingDefinitions(definitions: registry.tangibles, then: thenFollow) }
            hub.updateTangibles(registry.tangibles)
            // Event mode: a quiet surface cuts no frames, so the change asks for one itself
            // (pair/define/forget and SIGHUP must not wait for the next touch).
            parts.clock.ticker.inputArrived()
        }
        let load = Mutex(FrameLoad())
        let period = 1 / parts.config.clock.rateHz
        parts.clock.start { [self] frame in
            let cpu = ThreadCPUClock.nanoseconds()
            defer { account(ThreadCPUClock.nanoseconds() &- cpu, period: period, load: load) }
            let pending = pendingDefinitions.withLock { p in defer { p = nil }; return p }
            let (wake, occupied) = pipeline.withPipeline { p -> (Wake, Bool) in
                let result = p.process(frame)
                recording?.recordResult(of: p, frame: frame, result: result)
                if let pending {
                    p.setDefinitions(pending.definitions)
                    recording?.record(definitions: pending.definitions)
                }
                return (result.wake, Self.isOccupied(result))
            }
            parts.clock.ticker.wake(wake, occupied: occupied)
            pending?.then()
            // The new definitions take effect after this frame's step: one more frame shows
            // them (to apps, and to control calls waiting for the engine to have them).
            if pending != nil { parts.clock.ticker.inputArrived() }
        }
        defer {
            parts.clock.stop()
            recording?.close()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for source in inputs {
                let clock = parts.clock
                let logger = logger
                group.addTask {
                    do { try await source.run { clock.add(contacts: $0) } } catch {
                        logger.error("input \(source.name) stopped: \(error)", metadata: ["input": "\(source.name)"])
                    }
                }
            }
            group.addTask { [links, parts] in await links.run(clock: parts.clock, metrics: parts.metrics) }
            group.addTask { [self] in await self.reloadOnHangup() }
            group.addTask { [self] in await self.notifySystemd() }
            SDNotify.ready(status: status())
            logger.notice("percbridge serving", metadata: ["status": "\(status())"])
            _ = InputEventLoop.group  // made (and its thread promoted) before its status is read
            let frameThread = ReceiveThreadPriority.status(of: .frameClock)
            let inputThread = ReceiveThreadPriority.status(of: .touchInput)
            let webThread = ReceiveThreadPriority.status(of: .appOutput)
            logger.info("thread scheduling: frame clock \(frameThread), touch input \(inputThread), app output \(webThread)")
            try await gracefulShutdown()
            SDNotify.stopping()
            group.cancelAll()
        }
    }

    /// One frame's work on the frame thread: counted (`percbridge_frame_thread_cpu_seconds_total`,
    /// `percbridge_frame_overruns_total`), and every 10 s a line when frames overran the frame
    /// period; when the thread took more than half a core, it gives up real-time scheduling
    /// (docs/install.md, "When the frame thread falls behind").
    private func account(_ nanoseconds: UInt64, period: Seconds, load: borrowing Mutex<FrameLoad>) {
        let metrics = parts.metrics
        metrics.frameThreadCPU.increment(by: Double(nanoseconds) / 1e9)
        if Double(nanoseconds) > period * 1e9 { metrics.frameOverruns.increment() }
        guard let r = load.withLock({ $0.frame(cpuNanoseconds: nanoseconds, period: period, at: MonotonicClock.now()) }) else { return }
        let share = String(format: "%.0f%%", r.share * 100)
        if r.overruns > 0 {
            logger.warning("the frame thread fell behind: \(r.overruns) of \(r.frames) frames in the last \(Int(r.seconds.rounded())) s took longer than a frame period (\(String(format: "%.1f", period * 1000)) ms at rate_hz), the longest \(String(format: "%.1f", r.longestMs)) ms; it used \(share) of a core. Inputs wait for the next frame and the clock skips ticks rather than queueing them; counted in percbridge_frame_overruns_total",
                           metadata: ["overruns": "\(r.overruns)", "frames": "\(r.frames)", "cpu_share": "\(r.share)"])
        }
        if r.tooBusy, ReceiveThreadPriority.demoteCurrentThread(as: .frameClock, reason: "it used \(share) of a core; demoted") {
            logger.error("the frame thread used \(share) of a core over the last \(Int(r.seconds.rounded())) s (\(r.frames) frames); it runs at ordinary priority from now on so bluetoothd, the compositor and the apps keep their share. This is not normal: record a session (serve --record) and report it",
                         metadata: ["cpu_share": "\(r.share)", "frames": "\(r.frames)"])
        }
    }

    /// Event mode: whether anything is on the surface (a touch, a tangible with a pose, a PERC
    /// with its field on): the clock then cuts a keep-alive frame at least every
    /// `TickSchedule.keepAlive` even when the core has no deadline.
    static func isOccupied(_ result: FrameResult) -> Bool {
        !result.snapshot.pointers.isEmpty || result.snapshot.tangibles.contains { $0.pose != nil || $0.field == 1 }
    }

    private func status() -> String {
        let tangibles = parts.pipeline.withPipeline { $0.lastResult?.snapshot.tangibles.filter(\.isOnSurface).count ?? 0 }
        let statuses = links.statuses()
        let up = statuses.values.filter(\.isConnected).count
        return "\(inputs.count) inputs, \(up)/\(statuses.count) PERC links up, \(parts.hub.clientCount) apps, \(tangibles) tangibles on the surface"
    }

    private func reloadOnHangup() async {
        for await _ in await UnixSignalsSequence(trapping: .sighup) {
            SDNotify.reloading()
            do {
                let registry = try store.load()
                links.registryChanged(registry)
                logger.notice("reloaded the tangible registry", metadata: ["tangibles": "\(registry.tangibles.count)"])
            } catch {
                logger.error("reload failed, keeping the old registry: \(error)")
            }
            SDNotify.ready(status: status())
        }
    }

    /// Keep-alives at half the watchdog interval, only while frames are being made.
    private func notifySystemd() async {
        let interval = SDNotify.watchdogInterval.map { $0 / 2 } ?? .seconds(10)
        var lastFrames: UInt64 = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            let frame = parts.pipeline.withPipeline { $0.lastResult?.snapshot.frame ?? 0 }
            if frame > lastFrames || SDNotify.watchdogInterval == nil { SDNotify.watchdog() }
            lastFrames = frame
            SDNotify.status(status())
        }
    }
}
