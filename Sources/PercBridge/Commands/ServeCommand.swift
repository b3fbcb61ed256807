// `percbridge serve`: the service people install (systemd/percbridge.service runs it).
import ArgumentParser
import Foundation
import Logging
import MTKTangibles
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the service: inputs, frame clock, recognition, light checks, TUIO/WebSocket outputs.",
        discussion: """
        Reads the config file (docs/configuration.md) and the tangible registry, then runs
        until SIGTERM. SIGHUP reloads the registry. Under systemd (Type=notify) it reports
        readiness, status and watchdog keep-alives, and logs to the journal with the fields
        TANGIBLE, STATE, PREVIOUS_STATE and REASON.

        Examples:
          percbridge serve --config /etc/percbridge/percbridge.toml
          percbridge config check /etc/percbridge/percbridge.toml   # before a restart
        """
    )

    @Option(name: .long, help: "The TOML config file.")
    var config: String = "/etc/percbridge/percbridge.toml"

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String = "info"

    func run() async throws {
        LogSetup.bootstrap(level: Logger.Level(rawValue: logLevel))
        let logger = Logger(label: "percbridge.serve")
        let cfg: ServiceConfig
        do {
            cfg = FileManager.default.fileExists(atPath: config) ? try ConfigLoader.load(path: config) : ServiceConfig()
        } catch let e as ConfigError {
            printError(e.description)
            throw ExitCode(1)
        }
        let store = RegistryStore(path: cfg.registry.path)
        let registry = try store.load()
        let surface = Vec2(cfg.surface.widthMM, cfg.surface.heightMM)
        let parts = try await ServiceParts.make(
            config: cfg, definitions: registry.tangibles, surface: surface, timeline: MonotonicClock.now,
            acceptPresented: true, logger: logger,
            actuate: { id, _ in
                AppProtocolError(code: .unavailable, message: "actuators of tangible \(id) are not reachable from this build", inReplyTo: "actuate")
            },
            onHTTPPort: { port in logger.notice("web viewer and app protocol on http://\(cfg.http.bind.host):\(port)/") })
        let inputs = try ServiceInputs.make(cfg.inputs, surface: surface, logger: logger)
        let loop = ServeLoop(parts: parts, inputs: inputs, store: store, logger: logger)
        try await parts.run(loop, logger: logger)
    }
}
