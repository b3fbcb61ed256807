// `percbridge overlay`: reads the service's config and starts percbridge-overlay (X11 or Wayland) with it.
import ArgumentParser
import Foundation
import Glibc
import Logging
import PercSystem
import PercRuntime

/// The overlay links the X client libraries, so it is its own executable (the service binary
/// stays free of them on headless tables); this resolves the config file ([http] for where
/// the service listens and its token, [overlay] for where the surface is on the screen),
/// lets flags override it, and hands over to `percbridge-overlay` beside this binary.
struct OverlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "overlay",
        abstract: "Draw the light-check patches over any app on the table's screen (X11 or Wayland).",
        discussion: """
        Most table software speaks TUIO only and never draws PercBridge's light-check patches, \
        so PERCs are only guessed from their touches. Run this in the table's graphical session \
        (a user unit or an autostart entry, docs/overlay.md): it connects to the service like an \
        app, draws the patches above every window, passes every touch and click through, and \
        reports when each was shown. An app that draws the overlay itself wins; this then \
        stands by.

        Examples:
          percbridge overlay                                  # the config at \(ServeCommand.defaultConfigPath)
          percbridge overlay --output HDMI-1
          percbridge overlay --backend wayland                # sway, labwc, KDE: the layer shell
          percbridge overlay --size 1920x1080 --origin 0,0 --rotation 180
        """
    )

    @Option(help: "The service's config file ([http] bind/token, [overlay]); default \(ServeCommand.defaultConfigPath).")
    var config: String?
    @Option(help: "auto (X11 with a display, else Wayland), x11 or wayland (default: [overlay] backend, else auto).")
    var backend: String?
    @Option(help: "The X display (default: [overlay] display, else $DISPLAY).")
    var display: String?
    @Option(help: "The RandR output the touch surface fills (default: [overlay] output, else the primary).")
    var output: String?
    @Option(help: "Top-left corner of the touch surface in pixels, X,Y (with --size).")
    var origin: String?
    @Option(help: "Size of the touch surface in pixels, WIDTHxHEIGHT.")
    var size: String?
    @Option(help: "Clockwise rotation of the surface against the screen: 0, 90, 180, 270.")
    var rotation: Int?
    @Option(help: "Log level: error, warning, info, debug.")
    var logLevel = "info"

    func run() throws {
        let logger = Logger(label: "percbridge overlay")
        let cfg = try ServeCommand.loadConfig(given: config, logger: logger)
        guard cfg.http.enabled else {
            throw CLIError(.config, "the service's web server is off ([http] enabled = false): the overlay talks to it over /ws; turn it on")
        }
        let args = Self.arguments(config: cfg, backend: backend, display: display, output: output, origin: origin, size: size,
                                  rotation: rotation, logLevel: logLevel)
        guard let path = SiblingExecutable.path("percbridge-overlay") else {
            throw CLIError(.unavailable, "the overlay is percbridge-overlay, which is not beside \(SiblingExecutable.current); build it (swift build -c release --product percbridge-overlay) or install the percbridge package")
        }
        // The token goes by environment, not argv: other users can read a process's arguments.
        if !cfg.http.token.isEmpty { setenv("PERCBRIDGE_TOKEN", cfg.http.token, 1) }
        let argv = [path] + args
        let cArgs = argv.map { strdup($0) } + [nil]
        execv(path, cArgs)
        throw CLIError(.software, "cannot run \(path): \(String(cString: strerror(errno)))")
    }

    /// percbridge-overlay's arguments: flags first, then the config's [overlay], then defaults.
    static func arguments(config cfg: ServiceConfig, backend: String? = nil, display: String?, output: String?, origin: String?,
                          size: String?, rotation: Int?, logLevel: String) -> [String] {
        // A wildcard bind is reached on loopback from the same machine.
        let bindHost = cfg.http.bind.host
        let host = ["0.0.0.0", "::", "", "*"].contains(bindHost) ? "127.0.0.1" : bindHost
        let hostPart = host.contains(":") ? "[\(host)]" : host
        // An explicit choice only: "auto" leaves $PERCBRIDGE_OVERLAY_BACKEND in charge.
        let chosen = backend ?? (cfg.overlay.backend == "auto" ? nil : cfg.overlay.backend)
        return ["run", "--url", "ws://\(hostPart):\(cfg.http.bind.port)/ws", "--log-level", logLevel]
            + (chosen.map { ["--backend", $0] } ?? [])
            + placement(cfg.overlay, display: display, output: output, origin: origin, size: size, rotation: rotation)
    }

    /// Where the surface is on the screen, as percbridge-overlay's flags: each flag given here,
    /// else the config's [overlay] value, else none (the overlay's default). Shared with
    /// `demo --display screen`, whose sampler must read where the overlay draws.
    static func placement(_ o: ServiceConfig.Overlay, display: String?, output: String?, origin: String?, size: String?,
                          rotation: Int?) -> [String] {
        var args: [String] = []
        func add(_ flag: String, _ value: String?, _ fallback: String) {
            if let v = value ?? (fallback.isEmpty ? nil : fallback) { args += [flag, v] }
        }
        add("--display", display, o.display)
        add("--output", output, o.output)
        add("--origin", origin, o.origin)
        add("--size", size, o.size)
        args += ["--rotation", String(rotation ?? o.rotation)]
        return args
    }
}
