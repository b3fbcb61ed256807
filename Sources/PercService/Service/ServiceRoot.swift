// The composition roots of `serve` and `demo`: the one place the runtime, the web server, the
// control API and diagnosis are put together, in one shape for both.
import Foundation
import Logging
import MTKTangibles
import MTKSimulator
import PercSystem
import ServiceLifecycle
import PercInput
import PercControl
import PercRuntime
import PercWeb

/// `serve` and `demo` are built the same way:
///
/// 1. the parts (`ServiceParts.make`: metrics, frame clock, app hub, TUIO, pipeline, live
///    diagnosis, web server) from a `ServiceConfig` and the registry's definitions;
/// 2. their inputs and a frame loop (`ServeLoop`: BlueZ links and touch sources; `DemoLoop`:
///    the simulator);
/// 3. the control API over a registry writer and links (`serve`: `ServiceLinks`; `demo`:
///    `DirectRegistry` and `DemoLinks`), on the bus chosen;
/// 4. the loop and the web server in one service group until SIGTERM/SIGINT (or `--duration`).
///
/// The commands parse their options, read the config and print; everything else is here.
public enum ServiceRoot {
    /// A start-up failure the command reports with its own exit code.
    public enum StartError: Error, CustomStringConvertible {
        /// `--record FILE` cannot be created.
        case cannotRecord(path: String, reason: String)

        public var description: String {
            switch self {
            case .cannotRecord(let path, let reason): "--record \(path): \(reason)"
            }
        }
    }

    /// `percbridge serve`: runs until SIGTERM or SIGINT.
    public static func serve(config cfg: ServiceConfig, store: RegistryStore, registry: TangibleRegistry,
                             record: String?, controlBus: ControlBusChoice?, logger: Logger) async throws {
        let surface = Vec2(cfg.surface.widthMM, cfg.surface.heightMM)
        let links = ServiceLinks(config: cfg.bluetooth, store: store, definitions: registry.tangibles,
                                 logger: Logger(label: "percbridge.links"))
        let drops = DropLog(logger: logger)
        let inputs = try ServiceInputs.make(cfg.inputs, surface: surface, logger: logger, drops: drops)
        if inputs.isEmpty {
            logger.warning("no touch input is configured: tangibles cannot be tracked until one is added ([[input]] in the config, docs/inputs.md); PERC links and apps are served meanwhile")
        }
        var recording: ServeRecording?
        if let record {
            let sources = inputs.map(\.name) + (cfg.bluetooth.enabled ? ["bluez:\(cfg.bluetooth.bus)"] : [])
            do {
                recording = try ServeRecording(path: record, config: cfg, surface: surface, sources: sources,
                                               definitions: registry.tangibles)
            } catch {
                throw StartError.cannotRecord(path: record, reason: "\(error)")
            }
            logger.notice("recording every input to \(record)")
        }
        let parts = try await ServiceParts.make(
            config: cfg, definitions: registry.tangibles, surface: surface, timeline: MonotonicClock.now,
            acceptPresented: true, logger: logger, recorder: recording?.recorder,
            actuate: { id, request in links.actuate(id, request) },
            onHTTPPort: { port in logger.notice("web viewer and app protocol on http://\(cfg.http.bind.host):\(port)/") })
        parts.lightChecksFollowDrawingApps(logger: logger)
        drops.attach { [metrics = parts.metrics] in metrics.inputDropped(reason: $0, by: $1) }
        links.observeRSSI { [diagnostics = parts.diagnostics] in diagnostics.observe(rssi: $0) }
        let loop = ServeLoop(parts: parts, inputs: inputs, store: store, links: links, recording: recording, logger: logger)
        // The control API (docs/control-api.md): [control] in the config unless --control-bus says otherwise.
        try await run(parts: parts, loop: loop, registry: links, links: ServiceControlLinks(links: links),
                      context: .init(mode: "serve", frameRateHz: cfg.clock.rateHz),
                      controlBus: controlBus, fallback: cfg.control.enabled ? try? DBusBus(parsing: cfg.control.bus) : nil,
                      logger: logger)
    }

    /// What `percbridge demo` runs.
    public struct Demo {
        public var scenario: Scenario
        public var runner: ScenarioRunner
        /// `--registry FILE`, or nil for a temporary one started from the scenario.
        public var registryPath: String?
        /// Surface, clock rate, TUIO and HTTP settings; the rest are the defaults.
        public var config: ServiceConfig
        public var rate: Double
        public var duration: Seconds?
        public var record: String?
        /// `--display app` or `screen`: overlays are seen when an app reports them presented.
        public var displayByApp: Bool
        public var controlBus: ControlBusChoice?

        public init(scenario: Scenario, runner: ScenarioRunner, registryPath: String?, config: ServiceConfig, rate: Double,
                    duration: Seconds?, record: String?, displayByApp: Bool, controlBus: ControlBusChoice?) {
            self.scenario = scenario; self.runner = runner; self.registryPath = registryPath; self.config = config
            self.rate = rate; self.duration = duration; self.record = record; self.displayByApp = displayByApp
            self.controlBus = controlBus
        }
    }

    /// How far the demo got, for its summary.
    public struct DemoEnd: Sendable {
        public var summary: DemoLoop.Summary
        public var last: FrameResult?
    }

    /// `percbridge demo`: runs the scenario until `duration` or SIGTERM/SIGINT. `onHTTPPort`
    /// gets the bound port and the registry's tangibles, `onControlBus` the control API's bus.
    public static func demo(_ d: Demo, logger: Logger,
                            onHTTPPort: @escaping @Sendable (Int, [TangibleDefinition]) -> Void,
                            onControlBus: @escaping (DBusBus) -> Void) async throws -> DemoEnd {
        let demoRegistry = try DemoRegistry.open(path: d.registryPath, scenario: d.scenario, world: d.runner.world)
        defer { demoRegistry.cleanUp() }
        let definitions = try demoRegistry.store.load().tangibles
        let links = DemoLinks(world: d.runner.world)
        links.definitionsChanged(definitions)
        _ = links.takeSyncs()  // the modules registered from the start report their states themselves
        let surface = d.runner.world.surface
        let start = MonotonicClock.now()
        let parts = try await ServiceParts.make(
            config: d.config, definitions: definitions, surface: surface,
            timeline: { MonotonicClock.now() - start }, acceptPresented: false, logger: logger,
            actuate: { id, request in
                guard definitions.contains(where: { $0.id == id }) else {
                    return AppProtocolError(code: .unknownTangible, message: "no tangible \(id) in this demo", inReplyTo: "actuate")
                }
                logger.notice("actuate (simulated)", metadata: ["tangible": "\(id)", "request": "\(request)"])
                return nil
            },
            onHTTPPort: { port in onHTTPPort(port, definitions) })
        var recording: DemoRecording?
        if let record = d.record {
            do {
                recording = try DemoRecording(path: record, config: d.config, surface: surface, rate: d.rate,
                                              scenario: d.scenario.name, definitions: definitions)
            } catch {
                throw StartError.cannotRecord(path: record, reason: "\(error)")
            }
        }
        let loop = DemoLoop(runner: d.runner, parts: parts, start: start, duration: d.duration, rate: d.rate,
                            recording: recording, links: links, displayByApp: d.displayByApp, logger: logger)
        if d.displayByApp {
            parts.router.divertPresented { loop.appPresented($0) }
            parts.lightChecksFollowDrawingApps(logger: logger)
        }
        let hub = parts.hub
        // Registry changes (pair, define, calibrate, forget) reach the engine between two frames.
        let registry = DirectRegistry(store: demoRegistry.store) { definitions in
            loop.setDefinitions(definitions)
            hub.updateTangibles(definitions)
            links.definitionsChanged(definitions)
        }
        links.use(registry)
        let session: DBusBus? = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] == nil ? nil : .session
        try await run(parts: parts, loop: loop, registry: registry, links: links,
                      context: .init(mode: "demo", frameRateHz: d.rate), controlBus: d.controlBus, fallback: session,
                      onControlBus: onControlBus, logger: logger)
        return DemoEnd(summary: loop.summary.withLock { $0 }, last: parts.pipeline.withPipeline { $0.lastResult })
    }

    /// The shape both share once the parts and the loop are made: the control API over
    /// `registry` and `links` on the bus chosen (`--control-bus`, else `fallback`), then the
    /// loop and the web server until stopped.
    static func run(parts: ServiceParts, loop: some Service, registry: any ControlRegistry, links: any ControlLinks,
                    context: ControlService.Context, controlBus: ControlBusChoice?, fallback: DBusBus?,
                    onControlBus: (DBusBus) -> Void = { _ in }, logger: Logger) async throws {
        let control = ControlService(pipeline: parts.pipeline, registry: registry, links: links, hub: parts.hub,
                                     context: context, logger: logger)
        control.attach()
        let server = try await ControlServer.start(control, choice: controlBus, fallback: fallback, logger: logger)
        if let server { onControlBus(server.bus) }
        defer { server?.close() }
        try await parts.run(loop, logger: logger)
    }
}

