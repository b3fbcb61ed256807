// The drawing layer the tool runs on: the X11 window or the Wayland layer surface, behind one face.
import ArgumentParser
import Glibc
import PercOverlay
import PercOverlayClient

/// `--backend`: which display protocol the overlay draws through.
enum DisplayBackend: String, ExpressibleByArgument, CaseIterable, Sendable {
    case auto, x11, wayland
}

/// One opened display: what the run loop and `pixels` need from either layer.
enum OpenedDisplay: Sendable {
    case x11(X11Overlay)
    case wayland(WaylandOverlay)

    var outputs: [ScreenOutput] {
        switch self {
        case .x11(let x): x.outputs
        case .wayland(let w): w.outputs
        }
    }

    /// What the client draws through.
    var display: any OverlayDisplay {
        switch self {
        case .x11(let x): X11Display(x)
        case .wayland(let w): WaylandDisplay(w)
        }
    }

    func stop() {
        switch self {
        case .x11(let x): x.stop()
        case .wayland(let w): w.stop()
        }
    }

    /// For the start-up log line: where it draws and where the presented times come from.
    func describe(xDisplay: String) -> (on: String, timing: String) {
        switch self {
        case .x11(let x):
            return (xDisplay, x.timing == .present ? "the Present extension" : "an estimate (draw + one refresh)")
        case .wayland(let w):
            let clock = w.presentationClock.map { $0 == CLOCK_MONOTONIC ? "CLOCK_MONOTONIC" : "clock \($0), converted to CLOCK_MONOTONIC" }
            return ("Wayland \(w.displayName) (layer shell, output \(w.output.name))",
                    clock.map { "wp_presentation feedback (\($0))" } ?? "an estimate (frame callback + one refresh)")
        }
    }
}

/// The client draws through this on Wayland; WaylandOverlay takes layout pixels already.
struct WaylandDisplay: OverlayDisplay {
    let wayland: WaylandOverlay
    init(_ wayland: WaylandOverlay) { self.wayland = wayland }
    func show(_ discs: [ScreenDisc], serial: UInt64) {
        wayland.show(discs.map { OverlayDisc(x: $0.x, y: $0.y, radius: $0.radius, white: $0.white) }, serial: serial)
    }
}
