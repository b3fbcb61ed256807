// A callback that may be set or replaced at any time and is called from any thread, at the same cost on every call.
import Synchronization

/// Holds one `@Sendable (Argument) -> Void` (or none) for callers on other threads.
///
/// Why not `Mutex<(@Sendable (Argument) -> Void)?>`: a function type stored as a generic
/// value (a `Mutex`'s `Value`, or a tuple inside it) is kept in its most general form, and
/// `withLock`'s `inout` access converts it to the concrete form and back, wrapping it in two
/// more reabstraction thunks and storing the wrapped closure. Every read then makes the next
/// call slower and its stack deeper: in `serve` the per-frame callback of the control API was
/// 120,031 calls deep at frame 65,000 and overflowed the frame thread's stack at frame
/// 130,833 (issue 36). A function kept as the field of a struct has one fixed form, so the
/// `inout` access copies it as it is. `ModuleWallsTests` fails on a `Mutex` of a function
/// type (or of a tuple holding one) anywhere in Sources/.
public final class CallbackSlot<Argument>: Sendable {
    private struct Handler: Sendable {
        let call: @Sendable (Argument) -> Void
    }

    private let handler: Mutex<Handler?>

    public init(_ call: (@Sendable (Argument) -> Void)? = nil) { handler = Mutex(call.map(Handler.init)) }

    /// Sets (or with nil removes) the callback; callers already inside the old one finish it.
    public func set(_ call: (@Sendable (Argument) -> Void)?) { handler.withLock { $0 = call.map(Handler.init) } }

    public var isSet: Bool { handler.withLock { $0 != nil } }

    /// Calls the callback outside the lock (it may take its time or set another); false when none is set.
    @discardableResult
    public func callAsFunction(_ argument: Argument) -> Bool {
        guard let h = handler.withLock({ $0 }) else { return false }
        h.call(argument)
        return true
    }
}

extension CallbackSlot where Argument == Void {
    @discardableResult
    public func callAsFunction() -> Bool { callAsFunction(()) }
}
