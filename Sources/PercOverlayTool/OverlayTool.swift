// `percbridge-overlay`: draws the light-check patches over whatever app runs on the table's screen (X11 or Wayland).
import ArgumentParser
import Foundation
import Logging
import PercOverlay
import PercOverlayClient

@main
struct OverlayTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "percbridge-overlay",
        abstract: "Draw PercBridge's light-check patches over any app on the table's screen.",
        discussion: """
        Runs in the table's graphical session (not as the system service): it connects to the \
        service's app protocol like any app, draws each light-check patch as a small black or \
        white disc at the planned place above every other window, lets every touch and click \
        through to the app below, and reports when each frame was shown, so PERCs are checked \
        by light on tables whose apps speak only TUIO. When an app that draws the overlay itself \
        is connected, that app draws and this one stands by (docs/overlay.md).

        Usually started as `percbridge overlay`, which reads the service's config file ([http] \
        and [overlay]) and passes the values here.

        On Wayland (WAYLAND_DISPLAY set and no X display, or --backend wayland) it draws on the \
        compositor's overlay layer (zwlr_layer_shell_v1: sway, labwc, KDE, Hyprland; GNOME has \
        none) with presentation times from wp_presentation.

        Where the touch surface is on the screen: by default it fills the primary RandR output \
        (or the first; on Wayland the first output); --output picks another; --size (and --origin) give the rectangle in \
        pixels for a table whose touch area is not a whole output; --rotation turns the \
        surface's axes clockwise against the screen's.

        Exit status: 0 stopped by a signal; 69 no display, no layer shell (or the display went away); \
        64 wrong arguments; 76 the service speaks another protocol version.
        """,
        subcommands: [Run.self, Pixels.self],
        defaultSubcommand: Run.self
    )
}

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Connect and draw (the default).")

    @Option(help: "The service's app protocol address.")
    var url = "ws://127.0.0.1:8080/ws"
    @Option(help: "A file holding the service's http.token (or set PERCBRIDGE_TOKEN).")
    var tokenFile: String?
    @OptionGroup var screen: ScreenOptions
    @Option(help: "Log level: error, warning, info, debug.")
    var logLevel = "info"

    func run() async throws {
        var logger = Logger(label: "percbridge-overlay")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let endpoint: ServiceEndpoint
        switch ServiceEndpoint.parse(url, token: try readToken()) {
        case .failure(let e): throw ValidationError(e.description)
        case .success(let e): endpoint = e
        }
        let lost = LostSignal()
        let relay = PresentedRelay()
        let opened = try screen.openDisplay(logger: logger, onPresented: { serial, t in relay.presented(serial: serial, at: t) },
                                            onLost: { reason in lost.fire(reason) })
        defer { opened.stop() }
        let placement = try screen.placement(outputs: opened.outputs)
        let about = opened.describe(xDisplay: screen.display ?? ProcessInfo.processInfo.environment["DISPLAY"] ?? "?")
        logger.info("drawing on \(about.on): surface at \(Int(placement.width))x\(Int(placement.height))+\(Int(placement.originX))+\(Int(placement.originY)) rotation \(placement.rotation); presentation times from \(about.timing)")
        let client = OverlayClient(endpoint: endpoint, session: OverlaySession(placement: placement),
                                   display: opened.display, logger: logger)
        relay.client.withLock { $0 = client }
        let reason = await withTaskGroup(of: String?.self) { group in
            group.addTask { await client.run() }
            group.addTask { await lost.wait() }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let reason {
            FileHandle.standardError.write(Data("percbridge-overlay: \(reason)\n".utf8))
            throw ExitCode(lost.fired ? 69 : 76)
        }
    }

    private func readToken() throws -> String? {
        if let tokenFile {
            guard let t = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                throw ValidationError("cannot read the token file \(tokenFile)")
            }
            return t.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return ProcessInfo.processInfo.environment["PERCBRIDGE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// `percbridge-overlay pixels`: what the screen shows at surface points, for
/// `percbridge demo --display screen` (its simulated light sensors read the real screen the
/// overlay draws on). Each stdin line of "X Y" pairs in surface mm gets one line of `RRGGBB`
/// values (hex), read from the root window at the mapped pixels.
struct Pixels: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pixels",
        abstract: "Read the screen at surface points (mm): each stdin line of X Y pairs gets a line of RRGGBB values.")

    @Option(help: "The service's surface size in mm: WIDTHxHEIGHT.")
    var surfaceMm: String
    @OptionGroup var screen: ScreenOptions

    func run() throws {
        let surface = try ScreenOptions.pair(surfaceMm, separator: "x", what: "--surface-mm", example: "1018x573")
        guard screen.resolvedBackend(environment: ProcessInfo.processInfo.environment) == .x11 else {
            // A Wayland compositor does not let a client read the screen (grim uses a wlroots-only protocol).
            FileHandle.standardError.write(Data("percbridge-overlay: pixels reads the screen through X11 only; on Wayland pass an X display (--display, e.g. Xvfb for `percbridge demo --display screen`)\n".utf8))
            throw ExitCode(69)
        }
        let x11 = try screen.open(onPresented: { _, _ in }, onLost: { _ in })
        defer { x11.stop() }
        let placement = try screen.placement(outputs: x11.outputs)
        let mapping: SurfaceMapping
        switch SurfaceMapping.make(originX: placement.originX, originY: placement.originY, width: placement.width, height: placement.height,
                                   rotation: placement.rotation, surfaceWidthMM: surface.0, surfaceHeightMM: surface.1) {
        case .failure(let e): throw ValidationError(e.description)
        case .success(let m): mapping = m
        }
        while let line = readLine() {
            let n = line.split(separator: " ").compactMap { Double($0) }
            guard n.count % 2 == 0, n.count <= 512, n.allSatisfy(\.isFinite) else { print("error expected pairs of numbers (at most 256)"); fflush(nil); continue }
            let points = stride(from: 0, to: n.count, by: 2).map { i -> (x: Int, y: Int) in
                let p = mapping.pixel(x: n[i], y: n[i + 1])
                return (Int(p.x.rounded(.down)), Int(p.y.rounded(.down)))
            }
            do {
                let px = try x11.readPixels(points)
                print(px.map { String(format: "%02x%02x%02x", $0.r, $0.g, $0.b) }.joined(separator: " "))
            } catch {
                print("error \(error.description)")
            }
            fflush(nil)  // the demo waits for each line
        }
    }
}
