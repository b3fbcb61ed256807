// One RandR output that shows part of the root window: where the touch surface is, in pixels.

/// A RandR output with a CRTC, in root-window pixels. A rotated table shows up as `rotation`
/// (the CRTC's; `width` and `height` are already as the root window sees them).
public struct ScreenOutput: Sendable, Equatable {
    /// RandR's output name, e.g. "HDMI-1"; "screen" on Xvfb.
    public var name: String
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    /// 0, 90, 180 or 270: the CRTC's rotation (reflections are left out).
    public var rotation: Int
    /// The mode's refresh rate; nil when the mode gives no timings (some virtual outputs).
    public var refreshHz: Double?
    public var primary: Bool

    public init(name: String, x: Int, y: Int, width: Int, height: Int, rotation: Int = 0,
                refreshHz: Double? = nil, primary: Bool = false) {
        self.name = name
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.rotation = rotation
        self.refreshHz = refreshHz
        self.primary = primary
    }
}
