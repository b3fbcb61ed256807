// `serve`'s frame loop and housekeeping: frame clock ticks, inputs, SIGHUP reload, sd_notify.
import Foundation
import Logging
import MTKTangibles
import ServiceLifecycle
import UnixSignals

/// Runs the frame clock (its ticker thread cuts frames into the pipeline), the input
/// sources, the systemd watchdog and status, and reloads the registry on SIGHUP.
final class ServeLoop: Service {
    private let parts: ServiceParts
    private let inputs: [any InputSource]
    private let store: RegistryStore
    private let logger: Logger

    init(parts: ServiceParts, inputs: [any InputSource], store: RegistryStore, logger: Logger) {
        self.parts = parts; self.inputs = inputs; self.store = store; self.logger = logger
    }

    func run() async throws {
        let pipeline = parts.pipeline
        parts.clock.start { frame in _ = pipeline.withPipeline { $0.process(frame) } }
        defer { parts.clock.stop() }
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
            group.addTask { [self] in await self.reloadOnHangup() }
            group.addTask { [self] in await self.notifySystemd() }
            SDNotify.ready(status: status())
            logger.notice("percbridge serving", metadata: ["status": "\(status())"])
            try await gracefulShutdown()
            SDNotify.stopping()
            group.cancelAll()
        }
    }

    private func status() -> String {
        let tangibles = parts.pipeline.withPipeline { $0.lastResult?.snapshot.tangibles.filter(\.isOnSurface).count ?? 0 }
        return "\(inputs.count) inputs, \(parts.hub.clientCount) apps, \(tangibles) tangibles on the surface"
    }

    private func reloadOnHangup() async {
        for await _ in await UnixSignalsSequence(trapping: .sighup) {
            SDNotify.reloading()
            do {
                let registry = try store.load()
                parts.pipeline.withPipeline { $0.setDefinitions(registry.tangibles) }
                parts.hub.updateTangibles(registry.tangibles)
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
