// `percbridge config check FILE`: validates a config file and says where each problem is.
import ArgumentParser
import Foundation
import PercRuntime

struct ConfigCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a config file; print each problem with its line, key and what is allowed.",
        discussion: """
        Exits 0 and prints a summary when the file is usable, 78 (EX_CONFIG) when it is not, \
        66 when it cannot be read. Problems are printed one per line as \
        FILE:LINE: KEY: problem; allowed: ...

        Example:
          $ percbridge config check bad.toml
          bad.toml:4: clock.rate_hz: 5000.0 is out of range; allowed: 1.0 to 1000.0 Hz
        """
    )

    @Argument(help: "The TOML config file to check.")
    var file: String

    func run() throws {
        do {
            let c = try ConfigLoader.load(path: file)
            print("\(file): OK")
            print("  surface \(c.surface.name): \(c.surface.widthMM) x \(c.surface.heightMM) mm, clock \(c.clock.rateHz) Hz")
            print("  inputs: \(c.inputs.isEmpty ? "none" : c.inputs.map(\.summary).joined(separator: ", "))")
            print("  tuio: \(c.tuio.enabled ? "\(c.tuio.versions.rawValue) to \(c.tuio.targets.map(\.description).joined(separator: ", "))" : "off")")
            print("  http: \(c.http.enabled ? "\(c.http.bind)\(c.http.token.isEmpty ? "" : " (token required)")" : "off")")
            if c.lightChecks.enabled {
                let deadline = c.lightCheckConfig.latency.clockPriorDeadline * 1000
                print(String(format: "  light checks: display %.0f Hz, BLE interval %.1f ms: a round ends silent after %.0f ms (sensors with a clock, until their latency is learned)",
                             c.lightChecks.displayRefreshHz, c.lightChecks.bleIntervalMS, deadline))
            } else {
                print("  light checks: off")
            }
            print("  control: \(c.control.enabled ? "D-Bus \(c.control.bus) bus" : "off"), registry \(c.registry.path)")
        } catch let e as ConfigError {
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw CLIError(.noInput, "\(file): no such file or not readable; give the path of a config file (docs/percbridge.example.toml is one)")
            }
            printError(e.description)
            throw CLIError(.config, "\(e.issues.count) problem\(e.issues.count == 1 ? "" : "s") in \(file); see docs/configuration.md.")
        }
    }
}

extension ServiceConfig.Input {
    var summary: String {
        switch kind {
        case .evdev, .recording: "\(kind.rawValue) \(path ?? "")"
        case .tuio, .jsonTCP: "\(kind.rawValue) \(listen.map(\.description) ?? "")"
        }
    }
}
