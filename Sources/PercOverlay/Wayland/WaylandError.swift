// The one error type of the overlay's Wayland layer: a single line that says what went wrong and what to do.

/// Everything the Wayland layer throws or reports through `onLost`: one line, for a log or a CLI's
/// stderr, naming the display and saying what to do.
public struct WaylandError: Error, CustomStringConvertible, Sendable, Equatable {
    public var description: String
    /// False for a mistake in the arguments (an output name that is not there), true when the
    /// display cannot be used (exit 69).
    public var unavailable = true

    public init(_ description: String) { self.description = description }
}
