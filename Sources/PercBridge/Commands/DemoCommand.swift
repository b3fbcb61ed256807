// `percbridge demo`: the service on the simulator, with the web viewer and TUIO, no hardware needed.
import ArgumentParser
import Foundation
import Logging
import MTKTangibles
import MTKSimulator
import PercSystem
import PercInput
import PercService
import PercControl
import PercRuntime

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the service on the simulator: virtual PERCs and fingers, live web viewer, TUIO.",
        discussion: """
        Virtual PERCs and fingers play a scenario on a virtual table; the service recognises \
        them, plans light checks, the virtual display shows the patches and the virtual light \
        sensors answer. Open the printed URL to watch it live; any TUIO client on the target \
        port sees the tangibles and fingers. Built-in scenarios: \(Self.scenarioNames.joined(separator: ", ")).

        Examples:
          percbridge demo                                   # the lively demo scenario, until Ctrl-C
          percbridge demo --scenario two-percs-together --seed 7 --duration 10
          percbridge demo --tuio 127.0.0.1:3333 --tuio-version 1.1 --http 127.0.0.1:8081
          percbridge demo --scenario my-scenario.json --record demo.jsonl
          percbridge demo --scenario pairing --control-bus session   # then: percbridge status --bus session

        The control API (percbridge list, pair, define, calibrate, forget, status) is offered \
        on the session bus when there is one (--control-bus to choose; none to switch it off). \
        The demo keeps its tangible registry in a temp file unless --registry names one. The \
        `pairing` scenario has an unknown PERC lying on the surface for the walk-through in \
        docs/pairing.md.
        """
    )

    @Option(name: .long, help: ArgumentHelp("A TUIO target HOST:PORT (repeat for several).", valueName: "HOST:PORT"))
    var tuio: [String] = []

    @Option(name: .long, help: ArgumentHelp("Which TUIO to send: 1.1, 2.0 or both.", valueName: "VERSION"))
    var tuioVersion: String = "both"

    @Option(name: .long, help: ArgumentHelp("Where the web viewer, /ws and /metrics listen (port 0: any free).", valueName: "HOST:PORT"))
    var http: String = "127.0.0.1:8080"

    @Option(name: .long, help: "Access token (required when --http is not a loopback address).")
    var token: String = ""

    @Option(name: .customLong("allow-origin"), help: ArgumentHelp("""
        A web page origin that may use /ws besides the viewer's own, e.g. http://localhost:5173 \
        (repeat for several; `null` for pages opened from disk; docs/security.md).
        """, valueName: "ORIGIN"))
    var allowOrigin: [String] = []

    @Option(name: .long, help: ArgumentHelp("A built-in scenario name or a scenario JSON file.", valueName: "NAME|FILE"))
    var scenario: String = "demo"

    @Option(name: .long, help: "Seed of the simulation (default: the scenario's own).")
    var seed: UInt64?

    @Option(name: .long, help: "Stop after this many seconds (default: run until Ctrl-C).")
    var duration: Double?

    @Option(name: .long, help: ArgumentHelp("Record the inputs to FILE (replayable, see docs/inputs.md).", valueName: "FILE"))
    var record: String?

    @Option(name: .long, help: "Frame rate in Hz.")
    var rate: Double = 120

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String = "notice"

    @Option(name: .long, help: ControlBusChoice.help)
    var controlBus: ControlBusChoice?

    @Option(name: .long, help: ArgumentHelp("Keep the demo's tangible registry in FILE (default: a temp file).", valueName: "FILE"))
    var registry: String?

    @Option(name: .long, help: ArgumentHelp("""
        Who shows the light-check patches to the simulated light sensors: sim (a simulated \
        60 Hz display, default), app (a connected app that draws them and reports \
        presented, e.g. the web viewer or a page on percbridge.js; while none does, no \
        check gets an answer) or screen (as app, but the sensors read the real pixels of \
        the X screen under them through percbridge-overlay: run `percbridge overlay` \
        there, docs/overlay.md).
        """, valueName: "sim|app|screen"))
    var display: String = "sim"

    // Where the overlay puts the surface on the screen (--display screen): the sensors must
    // read where it draws. The same flags and [overlay] keys as `percbridge overlay`.
    @Option(name: .customLong("screen-config"), help: ArgumentHelp("""
        With --display screen: the service config whose [overlay] says where the surface is on \
        the screen, as `percbridge overlay` reads it (default: \(ServeCommand.defaultConfigPath) \
        when it exists).
        """, valueName: "FILE"))
    var screenConfig: String?
    @Option(name: .customLong("screen-output"), help: ArgumentHelp("With --display screen: the RandR output the surface fills.", valueName: "NAME"))
    var screenOutput: String?
    @Option(name: .customLong("screen-origin"), help: ArgumentHelp("With --display screen: top-left corner of the surface in pixels (with --screen-size).", valueName: "X,Y"))
    var screenOrigin: String?
    @Option(name: .customLong("screen-size"), help: ArgumentHelp("With --display screen: size of the surface in pixels.", valueName: "WxH"))
    var screenSize: String?
    @Option(name: .customLong("screen-rotation"), help: ArgumentHelp("With --display screen: clockwise rotation of the surface: 0, 90, 180, 270.", valueName: "DEGREES"))
    var screenRotation: Int?

    /// percbridge-overlay's placement flags for the sampler: the --screen-* flags, else the
    /// config's [overlay] (the given file, or the default one when it exists), else none.
    func screenPlacement(logger: Logger) throws -> [String] {
        var overlay = ServiceConfig().overlay
        if let screenConfig {
            overlay = try ConfigLoader.load(path: screenConfig).overlay
        } else if FileManager.default.fileExists(atPath: ServeCommand.defaultConfigPath),
                  let cfg = try? ConfigLoader.load(path: ServeCommand.defaultConfigPath) {
            overlay = cfg.overlay
        }
        return OverlayCommand.placement(overlay, display: nil, output: screenOutput, origin: screenOrigin, size: screenSize,
                                        rotation: screenRotation)
    }

    /// `--display screen`: `percbridge-overlay pixels` beside this binary, on the X screen of
    /// $DISPLAY (or [overlay] display), with the overlay's placement (`screenPlacement`).
    static func screenSampler(surface: Vec2, placement: [String], logger: Logger) throws -> ScreenSampler {
        guard let overlay = SiblingExecutable.path("percbridge-overlay") else {
            throw CLIError(.unavailable, "--display screen reads the screen through percbridge-overlay, which is not beside \(SiblingExecutable.current); build it (swift build --product percbridge-overlay)")
        }
        let sampler = try ScreenSampler(overlay: overlay, surfaceMM: surface, placement: placement, logger: logger)
        if let problem = sampler.check() {
            sampler.stop()
            throw CLIError(.unavailable, "--display screen: \(problem); run it in the table's X session (DISPLAY)")
        }
        return sampler
    }

    static var scenarioNames: [String] { BuiltInScenarios.names + [DemoPairingScenario.name] }

    func validate() throws {
        guard ServiceConfig.TUIO.Versions(rawValue: tuioVersion) != nil else {
            throw ValidationError("--tuio-version must be 1.1, 2.0 or both (got \(tuioVersion))")
        }
        for t in tuio where HostPort(parsing: t) == nil { throw ValidationError("--tuio \(t) is not HOST:PORT") }
        guard let h = HostPort(parsing: http, allowZeroPort: true) else { throw ValidationError("--http \(http) is not HOST:PORT") }
        for o in allowOrigin {
            if let problem = ServiceConfig.HTTP.originProblem(o) { throw ValidationError("--allow-origin \(o) \(problem)") }
        }
        if !h.isLoopback && token.count < 16 {
            throw ValidationError("--http \(http) is reachable from other machines: give --token with at least 16 characters")
        }
        guard ["sim", "app", "screen"].contains(display) else { throw ValidationError("--display must be sim, app or screen (got \(display))") }
        let placed = [screenConfig, screenOutput, screenOrigin, screenSize, screenRotation.map(String.init)].compactMap { $0 }
        if display != "screen", !placed.isEmpty {
            throw ValidationError("--screen-config, --screen-output, --screen-origin, --screen-size and --screen-rotation go with --display screen")
        }
        if let r = screenRotation, ![0, 90, 180, 270].contains(r) { throw ValidationError("--screen-rotation \(r): use 0, 90, 180 or 270") }
        if screenOrigin != nil, screenSize == nil { throw ValidationError("--screen-origin needs --screen-size") }
        if let d = duration, !(d > 0) { throw ValidationError("--duration must be above 0") }
        guard (1...1000).contains(rate) else { throw ValidationError("--rate must be 1 to 1000 Hz") }
    }

    func run() async throws {
        LogSetup.bootstrap(level: Logger.Level(rawValue: logLevel))
        let logger = Logger(label: "percbridge.demo")
        let scenario = try Self.loadScenario(scenario)
        var runner: ScenarioRunner
        do { runner = try ScenarioRunner(scenario, seed: seed, frameRate: rate) } catch {
            throw CLIError(.dataError, "scenario \(scenario.name): \(error)")
        }
        let surface = runner.world.surface
        let screen = display == "screen"
            ? try Self.screenSampler(surface: surface, placement: try screenPlacement(logger: logger), logger: logger) : nil
        defer { screen?.stop() }
        if let screen { runner.readScreen { screen.colour(at: $0) } }
        var config = ServiceConfig()
        config.surface = .init(name: "demo (\(scenario.name))", widthMM: surface.x, heightMM: surface.y)
        config.clock.rateHz = rate
        config.tuio.targets = tuio.isEmpty ? config.tuio.targets : tuio.compactMap { HostPort(parsing: $0) }
        config.tuio.versions = ServiceConfig.TUIO.Versions(rawValue: tuioVersion)!
        config.http.bind = HostPort(parsing: http, allowZeroPort: true)!
        config.http.token = token
        config.http.allowedOrigins = allowOrigin

        let tokenQuery = token.isEmpty ? "" : "?token=\(token)"
        let bindHost = config.http.bind.description.replacingOccurrences(of: ":\(config.http.bind.port)", with: "")
        let tuioLine = "TUIO \(config.tuio.versions.rawValue) → \(config.tuio.targets.map(\.description).joined(separator: ", "))"
        let (seed, duration) = (seed, duration)
        let demo = ServiceRoot.Demo(scenario: scenario, runner: runner, registryPath: registry, config: config, rate: rate,
                                    duration: duration, record: record, displayByApp: display != "sim", controlBus: controlBus)
        let end: ServiceRoot.DemoEnd
        do {
            end = try await ServiceRoot.demo(demo, logger: logger, onHTTPPort: { port, definitions in
                print("PercBridge demo: scenario \(scenario.name), seed \(seed ?? scenario.seed), \(definitions.count) tangible\(definitions.count == 1 ? "" : "s")")
                print("  web viewer:  http://\(bindHost):\(port)/\(tokenQuery)")
                print("  app protocol: ws://\(bindHost):\(port)/ws   metrics: http://\(bindHost):\(port)/metrics")
                print("  \(tuioLine)")
                print(duration.map { "  running for \($0) s" } ?? "  press Ctrl-C to stop")
                fflush(nil)  // scripts wait for these lines
            }, onControlBus: { bus in
                print("  control API: \(ControlAPI.busName) on the \(bus) (try: percbridge status\(ControlClient.busArgument(bus)))")
                fflush(nil)
            })
        } catch let e as ServiceRoot.StartError {
            throw CLIError(.cannotCreate, e.description)
        }
        Self.printSummary(end.summary, last: end.last)
    }

    static func loadScenario(_ nameOrFile: String) throws -> Scenario {
        if let s = BuiltInScenarios.named(nameOrFile) { return s }
        if nameOrFile == DemoPairingScenario.name { return DemoPairingScenario.scenario }
        guard FileManager.default.fileExists(atPath: nameOrFile) else {
            throw ValidationError("no built-in scenario or file \"\(nameOrFile)\"; built-in: \(scenarioNames.joined(separator: ", "))")
        }
        do { return try Scenario.decode(try Data(contentsOf: URL(fileURLWithPath: nameOrFile))) } catch {
            throw CLIError.reading(nameOrFile, "\(nameOrFile): \(error)")
        }
    }

    static func printSummary(_ s: DemoLoop.Summary, last: FrameResult?) {
        func pct(_ p: Double) -> Double { s.steps.totalCount == 0 ? 0 : Double(s.steps.valueAtPercentile(p * 100)) / 1e3 }
        print("demo summary: \(s.frames) frames, \(s.recognitions) recognitions, \(s.overlays) overlays, light checks \(s.confirmed) confirmed / \(s.rejected) rejected / \(s.inconclusive) inconclusive")
        print(String(format: "  step time p50 %.0f µs, p99 %.0f µs; reported pose vs simulator truth: mean %.2f mm over %d poses",
                     pct(0.5), pct(0.99), s.poseErrors.mean, s.poseErrors.count))
        let c = s.truthCount
        print(String(format: "  tangible-frames with a pose: %d, %.2f%% within 5 mm of their truth, %d swapped (on another tangible's place)",
                     c.poses, c.poses == 0 ? 0 : 100 * Double(c.correct) / Double(c.poses), c.swapped)
              + (c.swappedBy.isEmpty ? "" : " (" + c.swappedBy.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")")
              + "; on the surface over 1 s without a pose: \(c.unseen)")
        for t in s.poseErrors.ranked {
            var line = String(format: "  %@: mean %.2f mm over %d poses, at most %.1f mm", t.name, t.mean, t.count, t.largest)
            if let w = t.worst {
                line += String(format: "; worst stretch %.1f–%.1f s: %d frames more than %.0f mm off, up to %.1f mm",
                               w.start, w.end, w.frames, PoseErrorSummary.threshold, w.largest)
            }
            print(line)
        }
        print("  at the end:")
        for t in last?.snapshot.tangibles ?? [] {
            let pose = t.pose.map { String(format: "(%.1f, %.1f) mm %.0f°", $0.position.x, $0.position.y, $0.angle * 180 / .pi) } ?? "-"
            print("    \(t.name): \(t.state.rawValue)\(t.provenance.map { " (\($0.rawValue))" } ?? "") \(pose)")
        }
    }
}
