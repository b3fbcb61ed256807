// The hand-over of a call's serial between the sending code and its cancellation handler.
import Synchronization

/// Lets a cancellation handler that runs before, during or after sending find the serial.
final class DBusCallSerial: Sendable {
    private struct State { var serial: UInt32?; var cancelled = false }
    private let state = Mutex(State())

    /// Records the serial; true if cancellation came first (the caller must cancel the call).
    func set(_ serial: UInt32) -> Bool {
        state.withLock { s in
            s.serial = serial
            return s.cancelled
        }
    }

    /// Marks cancelled; returns the serial if the call was already sent.
    func cancel() -> UInt32? {
        state.withLock { s in
            s.cancelled = true
            return s.serial
        }
    }
}
