// The identity of a trace: unique over the process lifetime, never taken from a device (thesis 3.2.1).

/// A trace id. Ids grow from 1 and are never reused while the process runs; they are the
/// ids `Hypothesis.traces` and every engine output speak of.
public typealias TraceID = UInt64
