// `percbridge overlay`'s drawing layer on X11: patches over the table's app, click-through, with presented times.
import CXCB
import Logging

/// Owns one xcb connection and one overlay window on its own thread.
///
/// The window is override-redirect, covers the root window, and exists only where the discs are
/// (SHAPE bounding region); its input region is empty, so every touch and click reaches the app
/// below. It re-raises itself when another window is mapped or raised over it.
///
/// Presented times (`timing`): with Present, after drawing a frame the overlay asks for a
/// NotifyMSC at the next vblank and reports that CompleteNotify's `ust` — the server draws our
/// requests in order, so that vblank is the first scanout holding the whole frame. Without a
/// compositor the drawing goes straight to the scanned-out buffer, so this is when it was shown;
/// under a compositor it is the earliest it could have been. Without Present: the time a round
/// trip (GetInputFocus) returns after the drawing, plus one refresh period of the primary output
/// (60 Hz when RandR gives none).
public final class X11Overlay: Sendable {
    /// The RandR outputs with a CRTC, as found at init (one output "root" covering the root window
    /// when the server has no RandR 1.3).
    public let outputs: [ScreenOutput]
    /// `.present` when the server has the Present extension.
    public let timing: PresentationTiming
    /// The root window's size in pixels.
    public let rootWidth: Int
    public let rootHeight: Int
    private let connection: XCBConnection
    let loop: X11OverlayLoop

    /// Connects (display nil = $DISPLAY) and creates the window, not yet shown. `onPresented` and
    /// `onLost` are called on the overlay's thread; `onLost` at most once, and not after `stop()`.
    public convenience init(display: String?, logger: Logger = Logger(label: "percbridge.overlay"),
                            onPresented: @escaping @Sendable (_ serial: UInt64, _ monotonicSeconds: Double) -> Void,
                            onLost: @escaping @Sendable (X11Error) -> Void) throws(X11Error) {
        try self.init(display: display, logger: logger, usePresent: true, onPresented: onPresented, onLost: onLost)
    }

    /// `usePresent: false` times frames by estimate even where Present exists (tests of that path).
    init(display: String?, logger: Logger, usePresent: Bool,
         onPresented: @escaping @Sendable (_ serial: UInt64, _ monotonicSeconds: Double) -> Void,
         onLost: @escaping @Sendable (X11Error) -> Void) throws(X11Error) {
        let connection = try XCBConnection.open(display: display)
        do throws(X11Error) {
            try Self.requireShape(connection)
            let presentOpcode = try usePresent ? Self.presentOpcode(connection) : nil
            let outputs = RandROutputs.query(connection, logger: logger) ?? [
                ScreenOutput(name: "root", x: 0, y: 0, width: connection.rootWidth, height: connection.rootHeight, primary: true),
            ]
            let window = try OverlayWindow.create(on: connection)
            if presentOpcode != nil { window.selectPresentEvents() }
            let timedBy = outputs.first(where: \.primary) ?? outputs.first
            let period = 1 / (timedBy?.refreshHz ?? 60)
            let wakeup = try OverlayWakeup()
            self.connection = connection
            self.outputs = outputs
            self.timing = presentOpcode != nil ? .present : .estimate
            self.rootWidth = connection.rootWidth
            self.rootHeight = connection.rootHeight
            loop = X11OverlayLoop(connection: connection, window: window, wakeup: wakeup, presentOpcode: presentOpcode,
                                  refreshPeriod: period, logger: logger, onPresented: onPresented, onLost: onLost)
            logger.info("overlay: X display \(connection.displayName), \(connection.rootWidth)×\(connection.rootHeight), timing \(timing.rawValue), outputs \(outputs.map(Self.describe).joined(separator: ", "))")
        } catch {
            connection.close()
            throw error
        }
        loop.start()
    }

    deinit { loop.stop() }

    /// Latest wins, callable from any thread, never blocks on the server: the window's shape becomes
    /// exactly these discs (the first 256; radius clamped to 0.5…2048 px), drawn in their colours;
    /// once the frame is on screen `onPresented(serial, t)` is called on the overlay's thread (t in
    /// CLOCK_MONOTONIC seconds). An empty list clears the window (an empty shape: it stays mapped
    /// and on top) and is reported too. One frame is in flight at a time (`FramePacer`): a show()
    /// while a frame waits for its vblank is drawn right after it, and one replaced by a newer
    /// show() before it was drawn gets no report.
    public func show(_ discs: [OverlayDisc], serial: UInt64) {
        loop.show(FramePacer.Request(discs: discs, serial: serial))
    }

    /// Reads root-window pixels (GetImage, ZPixmap) as 8-bit RGB: what the screen shows there,
    /// the overlay included. Blocks for the round trips; at most 4096 points.
    public func readPixels(_ points: [(x: Int, y: Int)]) throws(X11Error) -> [(r: UInt8, g: UInt8, b: UInt8)] {
        // This thread may read events off the socket while it waits: the loop must look at them.
        defer { loop.wake() }
        return try connection.withOpen { (c) throws(X11Error) -> [(r: UInt8, g: UInt8, b: UInt8)] in
            try RootPixels.read(points, from: connection, c: c)
        }
    }

    /// Ends the thread, destroys the window, disconnects; idempotent. From the overlay's own thread
    /// (inside a callback) it only asks, and the thread ends after the callback returns.
    public func stop() { loop.stop() }

    /// True once the overlay's thread has ended (stopped, or the display was lost).
    var hasEnded: Bool { loop.hasEnded }

    private static func requireShape(_ connection: XCBConnection) throws(X11Error) {
        guard connection.extensionOpcode({ percbridge_xcb_shape_extension($0) }) != nil else {
            throw X11Error("the X server lacks the SHAPE extension (display \(connection.displayName)); the overlay needs it to cut its window to the patches — use Xorg or Xvfb")
        }
        let version = try connection.reply("SHAPE QueryVersion") { c, e in
            xcb_shape_query_version_reply(c, xcb_shape_query_version(c), e)
        } read: { ($0.pointee.major_version, $0.pointee.minor_version) }
        guard version.0 > 1 || (version.0 == 1 && version.1 >= 1) else {
            throw X11Error("the X server's SHAPE extension is \(version.0).\(version.1) (display \(connection.displayName)); the overlay needs 1.1 for input shapes, to let touches through")
        }
    }

    /// Present's opcode when the server has Present 1.0 or newer.
    private static func presentOpcode(_ connection: XCBConnection) throws(X11Error) -> UInt8? {
        guard let opcode = connection.extensionOpcode({ percbridge_xcb_present_extension($0) }) else { return nil }
        let major = try connection.reply("Present QueryVersion") { c, e in
            xcb_present_query_version_reply(c, xcb_present_query_version(c, 1, 0), e)
        } read: { $0.pointee.major_version }
        return major >= 1 ? opcode : nil
    }

    private static func describe(_ o: ScreenOutput) -> String {
        let hz = o.refreshHz.map { "\(($0 * 100).rounded() / 100) Hz" } ?? "refresh unknown"
        return "\(o.name) \(o.width)×\(o.height)+\(o.x)+\(o.y) rot \(o.rotation) \(hz)\(o.primary ? " primary" : "")"
    }
}
