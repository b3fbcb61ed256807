// `percbridge diagnose`: per-tangible sensor reliability from a recording or the running service; suggest and apply settings.
import ArgumentParser
import Foundation
import PercInput
import PercDiagnose
import PercRuntime

struct DiagnoseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diagnose",
        abstract: "Measure, per tangible, link loss and latency, field-sensor timing, light-sensor misses and flips.",
        discussion: """
        From a recording (--from FILE, written by `percbridge record`, `serve --record` or `demo --record`) the inputs are replayed through the engine and the light-check scheduler; live, the running service's own figures are fetched from its web server (GET /diagnostics). docs/diagnose.md explains each figure.

        --suggest prints recommended settings (the surface's recognition time window, the stationary-failure limit) with their evidence; --apply CONFIG writes them into that TOML file atomically, keeping its comments and other keys (restart the service to use them).

        --light-test N TANGIBLE asks the running service to show N light checks under a still PERC (an app that draws overlays must be open, e.g. the web viewer; the demo's virtual display counts) and reports its miss rate and response latency.

        Examples:
          percbridge diagnose --from session.jsonl
          percbridge diagnose --from session.jsonl --json > report.json
          percbridge diagnose --from session.jsonl --html report.html --suggest
          percbridge diagnose --from session.jsonl --apply percbridge.toml
          percbridge diagnose --http 127.0.0.1:8080      # live
          percbridge diagnose --light-test 20 "PERC A" --http 127.0.0.1:8080
        """
    )

    @Option(name: .long, help: ArgumentHelp("Diagnose this recording instead of the running service.", valueName: "FILE"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp("The running service's web address (default: http.bind of --config, else 127.0.0.1:8080).", valueName: "HOST:PORT"))
    var http: String?

    @Option(name: .long, help: "The service's access token, if it needs one.")
    var token: String = ""

    @Option(name: .long, help: ArgumentHelp("The service's config: current settings for --suggest; engine settings for replaying a recording whose header has none.", valueName: "FILE"))
    var config: String?

    @Flag(help: "Print the report (and suggestions) as JSON.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Also write a self-contained HTML report with histograms and time lines.", valueName: "FILE"))
    var html: String?

    @Flag(help: "Print recommended settings with their evidence.")
    var suggest = false

    @Option(name: .long, help: ArgumentHelp("Write the recommended settings into this TOML config (atomically).", valueName: "CONFIG"))
    var apply: String?

    @Option(name: .customLong("light-test"), help: ArgumentHelp("Run N light checks on TANGIBLE (id or name) lying still.", valueName: "N"))
    var lightTest: Int?

    @Argument(help: ArgumentHelp("The tangible of --light-test (id or name).", valueName: "TANGIBLE"))
    var tangible: String?

    func validate() throws {
        if let n = lightTest {
            guard (1...1000).contains(n) else { throw ValidationError("--light-test N: N must be 1 to 1000, got \(n)") }
            guard tangible != nil else { throw ValidationError("--light-test N needs the tangible: percbridge diagnose --light-test \(n) \"PERC A\"") }
            guard from == nil else { throw ValidationError("--light-test runs on the live service; leave out --from") }
        } else if let t = tangible {
            throw ValidationError("unexpected argument \"\(t)\": a tangible is only given with --light-test N")
        }
        if let h = http, HostPort(parsing: h) == nil { throw ValidationError("--http \(h) is not HOST:PORT") }
    }

    /// Reads and analyses a recording. Synchronous on purpose: with the recording (a large
    /// value, read through a typed throw) held in `run`'s async frame, the debug build read
    /// a corrupt `BadInputLog` after the analysis (Swift 6.3.1; SIGSEGV in every diagnose CLI
    /// test once `LightCheckConfig` grew by two settings).
    private static func diagnose(recording from: String, settings: inout DiagnoseSettings, config c: ServiceConfig,
                                 fallback: String) throws -> DiagnoseReport {
        let file: RecordingFile
        do { file = try RecordingFile.read(path: from) } catch { throw CLIError.reading(from, error.description) }
        settings.framePeriod = 1 / max(file.header.rateHz, 1)
        let report = RecordingDiagnosis.run(file, source: "recording \(from)", settings: settings,
                                            engine: c.engineConfig, lightChecks: c.lightCheckConfig, fallback: fallback)
        if file.bad.total > 0 { printError("\(from): \(file.bad.total) unreadable lines skipped (\(file.bad))") }
        return report
    }

    func run() async throws {
        if let f = from, !FileManager.default.fileExists(atPath: f) {
            throw CLIError(.noInput, "--from \(f): no such file; give a recording written by `percbridge record` or `demo --record`")
        }
        let configPath = config ?? apply
        let serviceConfig = try loadConfig(configPath)
        if let n = lightTest, let t = tangible {
            try await DiagnoseLightTestCLI(client: client(serviceConfig)).run(tangible: t, count: n)
            return
        }
        let report: DiagnoseReport
        var settings = DiagnoseSettings(config: serviceConfig ?? ServiceConfig())
        if let from {
            report = try Self.diagnose(recording: from, settings: &settings, config: serviceConfig ?? ServiceConfig(),
                                       fallback: configPath.map { "those of \($0)" } ?? "the defaults")
        } else {
            do { report = try await client(serviceConfig).report() } catch { throw CLIError(.unavailable, "\(error)") }
        }
        let current = serviceConfig ?? ServiceConfig()
        let windowMs = serviceConfig != nil ? Int(current.recognition.timeWindowMS)
            : Int(report.tangibles.first?.field.configuredWindowMs ?? current.recognition.timeWindowMS)
        let suggestions = SuggestionRules.suggest(report, settings: settings, currentWindowMs: windowMs,
                                                  currentFailures: current.lightChecks.maxFailedStationary,
                                                  currentIntervalMs: Int(current.lightChecks.bleIntervalMS.rounded(.up)),
                                                  currentRefreshHz: Int(current.lightChecks.displayRefreshHz.rounded()))
        if json {
            let e = JSONEncoder()
            e.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try e.encode(DiagnoseOutput(report: report, suggestions: suggestions)), as: UTF8.self))
        } else {
            print(ReportTable.render(report), terminator: "")
            if suggest || apply != nil { print("\n" + SuggestionText.render(suggestions), terminator: "") }
        }
        if let html {
            do { try AtomicFile.write(Data(ReportHTML.render(report, suggestions: suggestions).utf8), to: html) } catch { throw CLIError(.cannotCreate, "--html \(html): \(error)") }
            if !json { print("\nHTML report: \(html)") }
        }
        if let apply {
            do {
                let changes = try ConfigApplier.apply(suggestions, to: apply)
                let out = changes.isEmpty ? "\(apply): nothing to change" : changes.map { "\(apply): \($0)" }.joined(separator: "\n")
                if json { printError(out) } else { print("\n" + out + (changes.isEmpty ? "" : "\nrestart the service to use them (systemctl restart percbridge)")) }
            } catch { throw CLIError(.config, "--apply \(apply): \(error)") }
        }
    }

    private func loadConfig(_ path: String?) throws -> ServiceConfig? {
        guard let path else { return nil }
        do { return try ConfigLoader.load(path: path) } catch let e as ConfigError {
            throw CLIError(.config, "\(e.description)\n\(path) does not parse, so nothing was read or changed; fix it first (percbridge config check \(path))")
        }
    }

    private func client(_ config: ServiceConfig?) -> DiagnoseClient {
        let address = http ?? config.map { $0.http.bind.description } ?? "127.0.0.1:8080"
        return DiagnoseClient(hostPort: address, token: token.isEmpty ? (config?.http.token ?? "") : token)
    }
}
