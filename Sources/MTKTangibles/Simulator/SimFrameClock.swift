// Cuts a simulation's output into Frames at a fixed rate, as the service's frame clock does.

/// A fixed-rate frame clock for simulations (default 120 Hz, as the service's default).
///
///     var world = SimWorld(seed: 1)
///     var clock = SimFrameClock()
///     let frame = clock.next { world.advance(to: $0) }
public struct SimFrameClock: Sendable {
    public let rate: Double
    /// The time of the next frame.
    public private(set) var nextTime: Seconds
    private var assembler = FrameAssembler()

    public init(rate: Double = 120, start: Seconds = 0) {
        self.rate = rate
        self.nextTime = start
    }

    /// Runs the simulation to the next frame time (via `advance`) and cuts that frame.
    public mutating func next(_ advance: (Seconds) -> SimOutput) -> Frame {
        let t = nextTime
        advance(t).add(to: &assembler)
        nextTime = t + 1 / rate
        return assembler.cut(at: t)
    }
}

extension SimWorld {
    /// Frames at `rate` from the current time up to `end` (inclusive), for tests and benches.
    public mutating func frames(until end: Seconds, rate: Double = 120) -> [Frame] {
        var clock = SimFrameClock(rate: rate, start: now)
        var out: [Frame] = []
        while clock.nextTime <= end + 1e-9 { out.append(clock.next { advance(to: $0) }) }
        return out
    }
}
