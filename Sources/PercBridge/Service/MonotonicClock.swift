// The service's timeline: seconds of CLOCK_MONOTONIC, shared by every input and output.
import Dispatch
import MTKTangibles

enum MonotonicClock {
    /// Now, in seconds since boot (CLOCK_MONOTONIC, the clock evdev and BlueZ events are put on).
    @Sendable static func now() -> Seconds {
        Seconds(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}
