// The display (X11 or Wayland) and where the touch surface is on it: the options `run` and `pixels` share.
import ArgumentParser
import Foundation
import Logging
import PercOverlay
import PercOverlayClient

struct ScreenOptions: ParsableArguments {
    @Option(help: ArgumentHelp("How to draw: auto, x11 or wayland.", discussion: """
        auto: X11 when --display is given or $DISPLAY is set, else Wayland when $WAYLAND_DISPLAY \
        is set. Pass wayland to use the compositor's layer shell in a session that also has \
        XWayland (sway, labwc, KDE set both). Default: $PERCBRIDGE_OVERLAY_BACKEND, else auto \
        (so `percbridge overlay` and the user unit can be switched by the environment).
        """))
    var backend: DisplayBackend?
    @Option(help: "The X display (default: $DISPLAY); with --backend wayland, the Wayland display (default: $WAYLAND_DISPLAY).")
    var display: String?
    @Option(help: "The output the touch surface fills (e.g. HDMI-1): a RandR output on X11, a wl_output name on Wayland.")
    var output: String?
    @Option(help: "Top-left corner of the touch surface on the screen, in pixels: X,Y.")
    var origin: String?
    @Option(help: "Size of the touch surface on the screen, in pixels: WIDTHxHEIGHT.")
    var size: String?
    @Option(help: "Clockwise rotation of the surface's axes against the screen: 0, 90, 180 or 270.")
    var rotation = 0

    static let backendVariable = "PERCBRIDGE_OVERLAY_BACKEND"

    func validate() throws {
        if backend == nil, let v = ProcessInfo.processInfo.environment[Self.backendVariable], !v.isEmpty, DisplayBackend(rawValue: v) == nil {
            throw ValidationError("\(Self.backendVariable)=\(v.prefix(40)): use auto, x11 or wayland")
        }
        guard SurfaceMapping.rotations.contains(rotation) else { throw ValidationError("--rotation \(rotation): use 0, 90, 180 or 270") }
        _ = try origin.map { try Self.pair($0, separator: ",", what: "--origin", example: "0,0") }
        _ = try size.map { try Self.pair($0, separator: "x", what: "--size", example: "1920x1080") }
    }

    /// The backend `auto` stands for in this environment.
    func resolvedBackend(environment env: [String: String]) -> DisplayBackend {
        let chosen = backend ?? env[Self.backendVariable].flatMap(DisplayBackend.init(rawValue:)) ?? .auto
        switch chosen {
        case .x11, .wayland: return chosen
        case .auto:
            if display != nil || !(env["DISPLAY"] ?? "").isEmpty { return .x11 }
            return (env["WAYLAND_DISPLAY"] ?? "").isEmpty ? .x11 : .wayland
        }
    }

    /// Opens the chosen backend's display; when it cannot, says why in one line and exits 69
    /// (EX_UNAVAILABLE), or 64 for an output name the compositor does not have.
    func openDisplay(logger: Logger, onPresented: @escaping @Sendable (UInt64, Double) -> Void,
                     onLost: @escaping @Sendable (String) -> Void) throws -> OpenedDisplay {
        guard resolvedBackend(environment: ProcessInfo.processInfo.environment) == .wayland else {
            return .x11(try open(onPresented: onPresented, onLost: { onLost($0.description) }))
        }
        do {
            return .wayland(try WaylandOverlay(display: display, output: output, logger: logger, onPresented: onPresented,
                                               onLost: { onLost($0.description) }))
        } catch {
            guard error.unavailable else { throw ValidationError(error.description) }
            FileHandle.standardError.write(Data("percbridge-overlay: \(error.description)\n".utf8))
            throw ExitCode(69)
        }
    }

    /// Opens the X display; when it cannot, says why in one line and exits 69 (EX_UNAVAILABLE).
    func open(onPresented: @escaping @Sendable (UInt64, Double) -> Void,
              onLost: @escaping @Sendable (X11Error) -> Void) throws -> X11Overlay {
        do {
            return try X11Overlay(display: display, onPresented: onPresented, onLost: onLost)
        } catch {
            let env = ProcessInfo.processInfo.environment
            // A Wayland session without XWayland: say what the overlay needs instead of only "no display".
            let line = display == nil && (env["DISPLAY"] ?? "").isEmpty && !(env["WAYLAND_DISPLAY"] ?? "").isEmpty
                ? "this is a Wayland session (WAYLAND_DISPLAY=\(env["WAYLAND_DISPLAY"] ?? "")) without an X display: drop --backend x11 to draw through the compositor's layer shell, or enable XWayland and pass its display (--display :0) (docs/overlay.md, Wayland)"
                : error.description
            FileHandle.standardError.write(Data("percbridge-overlay: \(line)\n".utf8))
            throw ExitCode(69)
        }
    }

    static func pair(_ text: String, separator: Character, what: String, example: String) throws -> (Double, Double) {
        let parts = text.split(separator: separator).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let a = parts[0], let b = parts[1], a.isFinite, b.isFinite else {
            throw ValidationError("\(what) \(text.prefix(40)): expected two numbers like \(example)")
        }
        return (a, b)
    }

    /// The surface's rectangle: explicit pixels, else the named output, else the primary (or first).
    func placement(outputs: [ScreenOutput]) throws -> OverlaySession.Placement {
        let origin = try origin.map { try Self.pair($0, separator: ",", what: "--origin", example: "0,0") }
        let size = try size.map { try Self.pair($0, separator: "x", what: "--size", example: "1920x1080") }
        var base: ScreenOutput?
        if let output {
            guard let o = outputs.first(where: { $0.name == output }) else {
                let names = outputs.map(\.name).joined(separator: ", ")
                throw ValidationError("no output named \(output); this screen has \(names.isEmpty ? "no RandR outputs" : names)")
            }
            base = o
        } else {
            base = outputs.first(where: \.primary) ?? outputs.first
        }
        if let size {
            guard size.0 >= 1, size.1 >= 1 else { throw ValidationError("--size must be at least 1x1 pixels") }
            let o = origin ?? (Double(base?.x ?? 0), Double(base?.y ?? 0))
            return .init(originX: o.0, originY: o.1, width: size.0, height: size.1, rotation: rotation)
        }
        guard let base else { throw ValidationError("the X server lists no outputs (RandR): give the surface's place with --size WIDTHxHEIGHT [--origin X,Y]") }
        let o = origin ?? (Double(base.x), Double(base.y))
        return .init(originX: o.0, originY: o.1, width: Double(base.width), height: Double(base.height), rotation: rotation)
    }
}
