// The service's timeline: seconds of CLOCK_MONOTONIC, shared by every input and output.
import Dispatch

/// The service's timeline: seconds of CLOCK_MONOTONIC, read through Dispatch.
public enum MonotonicClock {
    /// Now, in seconds since boot (CLOCK_MONOTONIC, the clock evdev and BlueZ events are put on).
    @Sendable public static func now() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}
