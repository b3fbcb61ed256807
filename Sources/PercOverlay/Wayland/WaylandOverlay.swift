// `percbridge overlay`'s drawing layer on Wayland: a layer-shell surface over the table's app, click-through, with presented times.
import CWayland
import CWaylandProtocols
import Foundation
import Logging

/// Owns one Wayland connection and one `zwlr_layer_shell_v1` surface on its own thread.
///
/// The surface is on the `overlay` layer of one output, anchored to its four edges, exclusive zone
/// −1 (it moves nothing), no keyboard focus, and its input region is empty: every touch and click
/// reaches the app below. Its ARGB8888 buffer is premultiplied transparent except the discs.
///
/// Presented times (`timing`): with `wp_presentation`, each frame's commit asks for feedback and
/// reports `presented`'s timestamp, converted to CLOCK_MONOTONIC when the compositor's clock is
/// another one (by the two clocks' offset at that moment); a `discarded` frame was never shown and
/// gets no report. Without `wp_presentation`: the time the frame callback arrives plus one refresh
/// period (an upper estimate, as on X11 without Present). The empty first frame's feedback is a
/// probe: a compositor that announces wp_presentation but does not answer it within 0.3 s (sway 1.7
/// on wlroots 0.15's headless backend) is timed by frame callbacks too, and so is one that stops
/// answering before any frame was answered.
public final class WaylandOverlay: Sendable {
    /// The compositor's outputs (layout pixels: the mode divided by the scale); the first is the default.
    public let outputs: [ScreenOutput]
    /// The output the surface is on.
    public let output: ScreenOutput
    public let timing: PresentationTiming
    /// The display's name ("wayland-1").
    public let displayName: String
    /// The compositor's presentation clock (`clock_id`); nil without wp_presentation.
    public let presentationClock: Int32?
    let loop: WaylandOverlayLoop

    /// Connects (display nil = $WAYLAND_DISPLAY), creates the surface on the output named `output`
    /// (nil: the first), waits for its first configure and maps it empty. `onPresented` and `onLost`
    /// are called on the overlay's thread; `onLost` at most once, and not after `stop()`.
    public convenience init(display: String?, output: String? = nil, logger: Logger = Logger(label: "percbridge.overlay"),
                            onPresented: @escaping @Sendable (_ serial: UInt64, _ monotonicSeconds: Double) -> Void,
                            onLost: @escaping @Sendable (WaylandError) -> Void) throws(WaylandError) {
        try self.init(display: display, output: output, logger: logger, clickThrough: true, onPresented: onPresented, onLost: onLost)
    }

    /// `clickThrough: false` keeps the surface's default input region (all of it): the tests'
    /// control that a surface which takes input does stop the presses.
    init(display: String?, output: String?, logger: Logger, clickThrough: Bool,
         onPresented: @escaping @Sendable (_ serial: UInt64, _ monotonicSeconds: Double) -> Void,
         onLost: @escaping @Sendable (WaylandError) -> Void) throws(WaylandError) {
        let env = ProcessInfo.processInfo.environment
        let name = try Self.resolveDisplay(display, environment: env["WAYLAND_DISPLAY"])
        percbridge_wl_silence_log()
        guard let d = wl_display_connect(name) else {
            let runtime = env["XDG_RUNTIME_DIR"].map { "XDG_RUNTIME_DIR=\($0)" } ?? "XDG_RUNTIME_DIR is not set"
            throw WaylandError("cannot connect to Wayland display \(name) (\(runtime), errno \(errno)): is the compositor running and is this its session? Run the overlay in the table's session, or use XWayland with --display :0")
        }
        displayName = name
        let setup = WaylandSetup(display: d, name: name)
        do throws(WaylandError) {
            try setup.bindGlobals()
            let chosen = try setup.chooseOutput(output)
            try setup.createSurface(on: chosen, clickThrough: clickThrough)
            outputs = setup.outputs.enumerated().map { $1.screenOutput(index: $0) }
            self.output = outputs[chosen]
            loop = try WaylandOverlayLoop(setup: setup, output: self.output, scale: setup.outputs[chosen].scale, logger: logger,
                                          onPresented: onPresented, onLost: onLost)
            timing = loop.timesByPresentation ? .present : .estimate
            presentationClock = loop.timesByPresentation ? setup.clockID : nil
        } catch {
            setup.tearDown()
            throw error
        }
        let clock = presentationClock.map { $0 == CLOCK_MONOTONIC ? "CLOCK_MONOTONIC" : "clock \($0), converted to CLOCK_MONOTONIC" } ?? "frame callback + one refresh"
        logger.info("overlay: Wayland display \(name), layer surface on \(self.output.name) \(self.output.width)×\(self.output.height)+\(self.output.x)+\(self.output.y), timing \(timing.rawValue) (\(clock)), outputs \(outputs.map(\.name).joined(separator: ", "))")
        loop.start()
    }

    deinit { loop.stop() }

    /// As `X11Overlay.show`: latest wins, callable from any thread, never blocks on the compositor.
    /// Disc coordinates are compositor layout pixels (an output's own pixels offset by its position,
    /// as on X11's root window); the first 256 discs are drawn, the rest dropped.
    public func show(_ discs: [OverlayDisc], serial: UInt64) {
        loop.show(FramePacer.Request(discs: discs, serial: serial))
    }

    /// Ends the thread, destroys the surface, disconnects; idempotent.
    public func stop() { loop.stop() }

    /// True once the overlay's thread has ended (stopped, or the compositor was lost).
    public var hasEnded: Bool { loop.hasEnded }

    static func resolveDisplay(_ display: String?, environment: String?) throws(WaylandError) -> String {
        if let display, !display.isEmpty { return display }
        if let environment, !environment.isEmpty { return environment }
        throw WaylandError("no Wayland display: WAYLAND_DISPLAY is not set; run the overlay in the table's Wayland session")
    }
}
