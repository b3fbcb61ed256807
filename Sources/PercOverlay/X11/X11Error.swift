// The one error type of the overlay's X11 layer: a single line that says what went wrong and what to do.

/// Everything the X11 layer throws or reports through `onLost`: one line, for a log or a CLI's
/// stderr, naming the display and saying what to do ("no X display: DISPLAY is not set; …").
public struct X11Error: Error, CustomStringConvertible, Sendable, Equatable {
    public var description: String

    public init(_ description: String) { self.description = description }
}
