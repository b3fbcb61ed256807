// `percbridge serve`: the service people install (systemd/percbridge.service runs it).
import ArgumentParser
import Foundation
import Logging
import PercService
import PercControl
import PercRuntime

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the service: inputs, frame clock, recognition, light checks, TUIO/WebSocket outputs.",
        discussion: """
        Reads the config file (docs/configuration.md) and the tangible registry, connects \
        every registered PERC through BlueZ ([bluetooth] bus, default the system bus) and \
        keeps it connected, then runs until SIGTERM. SIGHUP reloads the registry (links of \
        new PERCs start, those of removed ones stop). Without a reachable BlueZ it keeps \
        serving touches and PUCs and says what to fix. Under systemd (Type=notify) it reports \
        readiness, status and watchdog keep-alives, and logs to the journal with the fields \
        TANGIBLE, STATE, PREVIOUS_STATE, REASON, and ADDRESS and LINK for PERC links.

        --record FILE writes the engine and light-check settings, every input (touches, sensor \
        events, presented reports, frame ticks), each registry change, each calibration the \
        control API starts or cancels, each RSSI value BlueZ reports for a PERC, and each \
        frame's result digest; `percbridge replay FILE` then reproduces the run and compares \
        every frame, and `percbridge diagnose --from FILE` analyses it (docs/recording-format.md).

        Examples:
          percbridge serve --config /etc/percbridge/percbridge.toml
          percbridge serve --config my.toml --record /tmp/session.jsonl --log-level debug
          percbridge config check /etc/percbridge/percbridge.toml   # before a restart
          percbridge serve --control-bus session   # control API (percbridge list/pair/define…) on your session bus
        """
    )

    static let defaultConfigPath = "/etc/percbridge/percbridge.toml"

    @Option(name: .long, help: ArgumentHelp(
        "The TOML config file (default: \(defaultConfigPath); when that is absent, the defaults).",
        valueName: "FILE"))
    var config: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String = "info"

    @Option(name: .long, help: ArgumentHelp("Record every input of this run to FILE (replayable).", valueName: "FILE"))
    var record: String?

    @Option(name: .long, help: ControlBusChoice.help)
    var controlBus: ControlBusChoice?

    func run() async throws {
        LogSetup.bootstrap(level: Logger.Level(rawValue: logLevel))
        let logger = Logger(label: "percbridge.serve")
        let cfg = try Self.loadConfig(given: config, logger: logger)
        let store = RegistryStore(path: cfg.registry.path)
        let registry: TangibleRegistry
        do { registry = try store.load() } catch let e as RegistryStore.LoadError {
            throw CLIError(.config, "\(e.description)\nfix the registry file (docs/configuration.md, \"The tangible registry\") or move it away to start with none")
        }
        do {
            try await ServiceRoot.serve(config: cfg, store: store, registry: registry, record: record,
                                        controlBus: controlBus, logger: logger)
        } catch let e as ServiceRoot.StartError {
            throw CLIError(.cannotCreate, e.description)
        }
    }

    /// The config the user named must be read (a typo must not start a service on defaults);
    /// only the default path may be absent.
    static func loadConfig(given: String?, logger: Logger) throws -> ServiceConfig {
        let path = given ?? defaultConfigPath
        guard FileManager.default.fileExists(atPath: path) else {
            if let given {
                throw CLIError(.config, "--config \(given): no such file; give the path of your config (docs/configuration.md), or leave --config out to run on the defaults")
            }
            logger.notice("no config file at \(path): running on the defaults (docs/configuration.md)")
            return ServiceConfig()
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CLIError(.config, "\(path): cannot be read by this user; fix its permissions (the service runs as user percbridge)")
        }
        do { return try ConfigLoader.load(path: path) } catch let e as ConfigError {
            throw CLIError(.config, "\(e.description)\n\(e.issues.count) problem\(e.issues.count == 1 ? "" : "s") in \(path); see docs/configuration.md (percbridge config check \(path))")
        }
    }
}
