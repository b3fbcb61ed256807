// Where the overlay's presented times come from.

/// How `X11Overlay` knows when a frame reached the screen.
public enum PresentationTiming: String, Sendable {
    /// The X server's Present extension: the `ust` of the PresentCompleteNotify at the vblank
    /// after the drawing (CLOCK_MONOTONIC on Linux DRM and on Xvfb).
    case present
    /// No Present: the time a round trip (GetInputFocus) returns after the drawing, plus one
    /// refresh period (the primary output's RandR mode; 60 Hz when unknown). The round trip proves
    /// the server has drawn the frame; the next scanout to hold all of it starts within a period.
    case estimate
}
