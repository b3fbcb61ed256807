// Builds the parts `serve` and `demo` share: metrics, frame clock, app hub, TUIO, pipeline, web server.
import Foundation
import LightCheck
import Logging
import MTKTangibles
import ServiceLifecycle
import PercDiagnose
import PercRuntime
import PercWeb

/// Everything between the inputs and the outputs, made from the config. The caller adds its
/// inputs (BlueZ links and touch sources for `serve`, the simulator for `demo`) to `clock`
/// and drives frames through `pipeline`.
public struct ServiceParts: Sendable {
    let config: ServiceConfig
    public let metrics: ServiceMetrics
    let clock: FrameClock
    public let hub: AppHub
    public let router: AppRouter
    public let pipeline: PipelineHandle
    let tuio: TUIOOutput?
    let web: (any Service)?
    /// The live diagnosis the pipeline feeds (ServiceLinks adds RSSI readings).
    public let diagnostics: LiveDiagnostics

    /// - Parameters:
    ///   - timeline: the service clock (monotonic seconds for `serve`, simulated time for `demo`).
    ///   - onHTTPPort: called with the bound HTTP port once the web server listens.
    ///   - recorder: writes every input and frame tick the frame clock sees (`serve --record`).
    public static func make(config: ServiceConfig, definitions: [TangibleDefinition], surface: Vec2,
                     timeline: @escaping @Sendable () -> Seconds, acceptPresented: Bool, logger: Logger,
                     recorder: Recorder? = nil,
                     actuate: @escaping @Sendable (TangibleID, ActuationRequest) -> AppProtocolError?,
                     onHTTPPort: @escaping @Sendable (Int) async -> Void) async throws -> ServiceParts {
        let metrics = ServiceMetrics()
        let follow = config.clock.followPresented && acceptPresented
        let mode: TickSchedule.Mode = switch config.clock.mode {
        case .events: .events(maxHz: config.clock.maxRateHz, burst: config.clock.maxBurst, busyHz: config.clock.rateHz, followPresented: follow)
        case .fixed: follow ? .followPresented(fallbackHz: config.clock.rateHz) : .fixedRate(hz: config.clock.rateHz)
        }
        let clock = FrameClock(mode: mode, recorder: recorder)
        let hub = AppHub(context: .init(service: "percbridge 0.1.0",
                                        surface: .init(name: config.surface.name, width_mm: surface.x, height_mm: surface.y),
                                        frameRateHz: config.clock.rateHz, acceptsContacts: config.http.acceptContacts),
                         tangibles: definitions, maxMessageBytes: config.http.maxMessageBytes, clock: timeline,
                         onDropped: { metrics.appFramesDropped.increment(by: $0) },
                         onIgnoredPresented: { metrics.appPresentedIgnored.increment() })
        let router = AppRouter(clock: clock, surface: surface, acceptPresented: acceptPresented, logger: logger, actuate: actuate)
        hub.setSink(router)
        // TUIO first: its datagrams leave before the apps' JSON is encoded.
        var outputs: [any FrameOutput] = []
        var tuio: TUIOOutput?
        if config.tuio.enabled, !config.tuio.targets.isEmpty {
            let t = try await TUIOOutput.start(targets: config.tuio.targets, versions: config.tuio.versions,
                                               source: config.tuio.source, surface: (surface.x, surface.y),
                                               maxDatagramBytes: config.tuio.maxDatagramBytes, metrics: metrics, logger: logger)
            outputs.append(t)
            tuio = t
        }
        outputs.append(hub)
        let core = EngineCore(definitions: definitions, engine: config.engineConfig, lightChecks: config.lightCheckConfig)
        let pipeline = PipelineHandle(Pipeline(core: core, outputs: outputs, metrics: metrics, logger: logger))
        let diagnostics = LiveDiagnostics(definitions: definitions, settings: DiagnoseSettings(config: config), source: "live service",
                                          metrics: DiagnosticsMetrics(registry: metrics.registry), logger: logger)
        pipeline.withPipeline { $0.observer = diagnostics }
        var web: (any Service)?
        if config.http.enabled {
            web = WebServer.make(bind: config.http.bind, token: config.http.token, hub: hub, metrics: metrics,
                                 logger: logger, diagnostics: diagnostics, allowedOrigins: config.http.allowedOrigins,
                                 maxApps: config.http.maxApps, maxConnections: config.http.maxConnections,
                                 pingInterval: config.http.pingIntervalSeconds, onRunning: onHTTPPort)
        }
        return ServiceParts(config: config, metrics: metrics, clock: clock, hub: hub, router: router,
                            pipeline: pipeline, tuio: tuio, web: web, diagnostics: diagnostics)
    }

    /// Light checks run only while an app that draws the overlay is connected (serve, and
    /// demo `--display app`): frames carry `drawing` from the apps' `hello`, and the change
    /// is logged. Without this call frames say the display is there (the demo's simulated one).
    /// With `[light_checks] enabled = false` frames say no app draws, whatever the apps say:
    /// PERCs are recognised from their traces alone, as with no drawing app.
    public func lightChecksFollowDrawingApps(logger: Logger) {
        guard config.lightChecks.enabled else {
            _ = clock.setDrawing(false)
            logger.notice("light checks are off ([light_checks] enabled = false): PERCs are recognised from their traces alone (provenance guessed) and apps get no patches to draw")
            return
        }
        hub.observeDrawing { [clock] drawing in
            guard clock.setDrawing(drawing) else { return }
            if drawing {
                logger.notice("an app draws the overlay: light checks run")
            } else {
                logger.notice("no app draws the overlay (none said draws_overlay in hello): light checks paused, PERCs are guessed from their traces")
            }
        }
    }

    /// How long the services may take to stop on SIGTERM/SIGINT before they are cancelled.
    static let gracefulShutdownLimit: Duration = .seconds(1)

    /// Runs `loop` (the frame loop) and the web server in one ServiceGroup until SIGTERM or
    /// SIGINT, or until the loop ends (demo `--duration`); then closes the TUIO socket.
    public func run(_ loop: some Service, logger: Logger) async throws {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: loop, successTerminationBehavior: .gracefullyShutdownGroup),
        ]
        if let web { services.append(.init(service: web)) }
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // An app that stopped reading never takes the WebSocket close frame (its socket is
        // full), so its session would hold the web server's graceful shutdown for ever: after
        // this long the group cancels the services instead, which closes such connections.
        configuration.maximumGracefulShutdownDuration = Self.gracefulShutdownLimit
        let group = ServiceGroup(configuration: configuration)
        do {
            try await group.run()
        } catch is CancellationError {
            // That escalation is a stop as asked, not a failure.
            logger.notice("stopped: a service took longer than \(Self.gracefulShutdownLimit) to stop (an app that stopped reading keeps its connection open) and was cancelled")
        }
        await tuio?.close()
    }
}
