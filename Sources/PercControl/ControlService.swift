// The control API's behaviour: list, status, pair, forget (define and calibrate in +Define).
import Foundation
import LightCheck
import Logging
import MTKTangibles
import Synchronization
import PercSystem
import PercBlueZ
import PercInput
import PercRuntime

/// What the D-Bus methods do, apart from the bus. Every method is async and holds the
/// pipeline lock only inside short synchronous closures (never across an await); long
/// calls (define, calibrate, pair) wait as suspended tasks, so frames and other calls go on.
///
/// The registry file is the truth: each change goes through `registry.update` (load, change,
/// save atomically, then the pipeline, the app hub and the links follow).
public final class ControlService: Sendable {
    public struct Settings: Sendable {
        /// How long Define waits for three still traces.
        var traceWait: Duration = .seconds(3)
        /// How long Define and Calibrate wait for LightCheck's offset search.
        var calibrationWait: Duration = .seconds(60)

        public init(traceWait: Duration = .seconds(3), calibrationWait: Duration = .seconds(60)) {
            self.traceWait = traceWait; self.calibrationWait = calibrationWait
        }
    }

    public struct Context: Sendable {
        /// `serve` or `demo`.
        public var mode: String
        var busDescription: String = ""
        public var frameRateHz: Double

        public init(mode: String, busDescription: String = "", frameRateHz: Double) {
            self.mode = mode; self.busDescription = busDescription; self.frameRateHz = frameRateHz
        }
    }

    let pipeline: PipelineHandle
    let registry: any ControlRegistry
    let links: any ControlLinks
    let hub: (any AppsView)?
    let logger: Logger
    let settings: Settings
    let waiters = FrameWaiters()
    private let context: Mutex<Context>
    private let started = MonotonicClock.now()
    /// Long calls running now: "define", "calibrate 3", "pair C0:…".
    let running = Mutex<Set<String>>([])
    /// Called with each tangible whose state changed (the D-Bus signal) and the on-surface count.
    let onChange = CallbackSlot<TangibleSnapshot>()
    let onSurfaceCount = CallbackSlot<Int>()

    public init(pipeline: PipelineHandle, registry: any ControlRegistry, links: any ControlLinks, hub: (any AppsView)?, context: Context,
         settings: Settings = .init(), logger: Logger) {
        self.pipeline = pipeline; self.registry = registry; self.links = links; self.hub = hub
        self.context = Mutex(context); self.settings = settings; self.logger = logger
    }

    /// Hooks into the pipeline: waiting calls see every frame, state changes are signalled.
    public func attach() {
        let waiters = waiters
        pipeline.withPipeline { p in
            p.afterFrame = { [self] view in
                waiters.frameDone(view)
                let count = view.pipeline.lastResult?.snapshot.tangibles.filter(\.isOnSurface).count ?? 0
                onSurfaceCount(count)
            }
            p.onStateChange = { [self] t in onChange(t) }
        }
    }

    func setBusDescription(_ text: String) { context.withLock { $0.busDescription = text } }
    var mode: String { context.withLock { $0.mode } }

    // MARK: Read

    func list() -> [[String: DBusValue]] {
        let (definitions, snapshots, ambiguity) = pipeline.withPipeline { p in
            (p.core.engine.definitions, p.lastResult?.snapshot.tangibles ?? [], p.core.engine.config.locateAmbiguity)
        }
        let links = Dictionary(self.links.statuses().map { ($0.address.uppercased(), $0) }, uniquingKeysWith: { a, _ in a })
        return definitions.map { d in
            ControlValues.tangible(d, snapshot: snapshots.first { $0.id == d.id }, link: d.address.flatMap { links[$0.uppercased()] },
                                   locateAmbiguity: ambiguity)
        }
    }

    func status() -> [String: DBusValue] {
        let (frames, tangibles, onSurface) = pipeline.withPipeline { p in
            (p.lastResult?.snapshot.frame ?? 0, p.core.engine.definitions.count,
             p.lastResult?.snapshot.tangibles.filter(\.isOnSurface).count ?? 0)
        }
        let ctx = context.withLock { $0 }
        return [
            "version": .string(ControlAPI.version), "mode": .string(ctx.mode), "bus": .string(ctx.busDescription),
            "registry": .string(registry.path), "frames": .uint64(frames), "frame_rate": .double(ctx.frameRateHz),
            "uptime": .double(MonotonicClock.now() - started), "tangibles": .uint32(UInt32(tangibles)),
            "on_surface": .uint32(UInt32(onSurface)), "apps": .uint32(UInt32(hub?.clientCount ?? 0)),
            "links": ControlValues.list(links.statuses().map(ControlValues.link)),
            "running": .stringArray(running.withLock { $0.sorted() }),
        ].merging(hub?.listening.map { ["http": DBusValue.string($0)] } ?? [:]) { a, _ in a }
    }

    // MARK: Pair, forget

    func pair(address raw: String, name: String) async throws -> [String: DBusValue] {
        let address = try Self.checkedAddress(raw)
        let name = name.trimmingCharacters(in: .whitespaces)
        if let problem = InputText.nameProblem(name) {
            throw ControlError(.InvalidArgument, "the name \"\(InputText.clip(name))\" \(problem); choose a shorter name (it is shown in every frame)")
        }
        let job = "pair \(address)"
        try begin(job, busy: "\(address) is being paired already; wait for that call to finish")
        defer { end(job) }
        let r = try await links.pair(address: address, name: name)
        try await engineTakes("the new PERC \(r.name)") { core in core.engine.definitions.contains { $0.id == r.tangible } }
        logger.notice("paired \(r.address) (\(r.name), \(r.profile)) as tangible \(r.tangible)", metadata: ["address": "\(r.address)"])
        return ["address": .string(r.address), "name": .string(r.name), "profile": .string(r.profile),
                "tangible": .int32(Int32(truncatingIfNeeded: r.tangible)), "already_paired": .boolean(r.alreadyPaired)]
    }

    func forget(_ key: String) async throws -> [String: DBusValue] {
        let key = key.trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty else { throw ControlError(.InvalidArgument, "name the tangible to forget by id, name or address (see `percbridge list`)") }
        guard let d = try load().find(key) else {
            throw ControlError(.UnknownTangible, "no tangible \"\(InputText.clip(key))\" in the registry; `percbridge list` shows the known ones")
        }
        let removed = try await links.forget(id: d.id)
        try await engineTakes("the removal of \(removed.name)") { core in !core.engine.definitions.contains { $0.id == removed.id } }
        pipeline.withPipeline { $0.withCore { $0.cancelCalibration(of: removed.id) } }
        logger.notice("forgot tangible \(removed.id) (\(removed.name))", metadata: ["tangible": "\(removed.name)"])
        return ControlValues.definition(removed)
    }

    // MARK: Shared

    /// Registry changes reach the engine between two frames: a call returns only once the
    /// engine has them, so a List right after it sees the change.
    func engineTakes(_ what: String, _ done: @escaping @Sendable (EngineCore) -> Bool) async throws {
        // With event-driven frames the frame that applied the change may already be past
        // (nothing else cuts one on a quiet surface): look at the engine as it is first.
        if pipeline.withPipeline({ done($0.core) }) { return }
        _ = try await waiters.wait(timeout: .seconds(5), timeoutError: {
            ControlError(.Timeout, "the engine did not take \(what) within 5 s (are frames being made? see `percbridge status`); the registry has it")
        }) { view in done(view.pipeline.core) ? true : nil }
    }

    func load() throws -> TangibleRegistry {
        do { return try registry.load() } catch { throw ControlError(.RegistryWrite, "\(error)") }
    }

    /// `registry.update`, its failures as `ControlError`s.
    func changeRegistry<T: Sendable>(_ change: (inout TangibleRegistry) throws -> T) throws -> T {
        do { return try registry.update(change) } catch let e as ControlError { throw e } catch let e as RegistryStore.LoadError {
            throw ControlError(.RegistryWrite, e.description)
        } catch let e as TangibleRegistry.LookupError {
            throw ControlError(.NameTaken, e.description)
        } catch {
            throw ControlError(.RegistryWrite, "cannot write the tangible registry \(registry.path): \(error); check that the service may write its state directory")
        }
    }

    func begin(_ job: String, busy: String) throws {
        let ok = running.withLock { $0.insert(job).inserted }
        guard ok else { throw ControlError(.Busy, busy) }
    }

    func end(_ job: String) { _ = running.withLock { $0.remove(job) } }

    static func checkedAddress(_ raw: String) throws -> String {
        let address = raw.trimmingCharacters(in: .whitespaces).uppercased()
        guard BlueZ.isAddress(address) else {
            throw ControlError(.InvalidArgument, "'\(InputText.clip(raw))' is not a Bluetooth address; write it as AA:BB:CC:DD:EE:FF (see `percbridge scan`)")
        }
        return address
    }
}
