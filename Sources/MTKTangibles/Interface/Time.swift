// Time as it enters the pure core: seconds on the service's monotonic timeline.

/// Seconds on one monotonic timeline (CLOCK_MONOTONIC in the service, virtual in the
/// simulator). The pure modules never read a clock: every time comes in as a value.
public typealias Seconds = Double
