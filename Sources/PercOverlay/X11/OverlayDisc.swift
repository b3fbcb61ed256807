// One light-check patch as the X11 layer draws it: a filled disc in root-window pixels.

/// A patch to draw: a disc of `radius` pixels around (`x`, `y`) in root-window pixel coordinates
/// (the caller maps millimetres to pixels), exactly white (0xFFFFFF) or exactly black (0x000000).
public struct OverlayDisc: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var radius: Double
    public var white: Bool

    public init(x: Double, y: Double, radius: Double, white: Bool) {
        self.x = x
        self.y = y
        self.radius = radius
        self.white = white
    }
}
