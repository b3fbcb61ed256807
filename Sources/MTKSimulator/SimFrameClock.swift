// Cuts a simulation's output into Frames at a fixed rate, as the service's frame clock does.
import MTKTangibles

/// A fixed-rate frame clock for simulations (default 120 Hz, as the service's default).
///
///     var world = SimWorld(seed: 1)
///     var clock = SimFrameClock()
///     let frame = clock.next { world.advance(to: $0) }
public struct SimFrameClock: Sendable {
    public let rate: Double
    public let start: Seconds
    /// Frames cut so far.
    public private(set) var count = 0
    private var assembler = FrameAssembler()

    /// With `eventStep`, a sensor notification also cuts a frame, as `serve`'s clock does in
    /// event mode: the world runs in steps of `eventStep` between the fixed frames, and the
    /// first step that releases a notification ends the frame there.
    public let eventStep: Seconds?
    private var lastCut: Seconds

    public init(rate: Double = 120, start: Seconds = 0, eventStep: Seconds? = nil) {
        self.rate = rate
        self.start = start
        self.eventStep = eventStep.flatMap { $0 > 0 ? $0 : nil }
        lastCut = start
    }

    /// The time of the next fixed frame (counted from the start, so that it does not drift).
    public var nextTime: Seconds { start + Double(count) / rate }

    /// Runs the simulation to the next frame time (via `advance`) and cuts that frame.
    public mutating func next(_ advance: (Seconds) -> SimOutput) -> Frame {
        let t = nextTime
        if let step = eventStep {
            var at = lastCut
            while at + step < t - 1e-9 {
                at += step
                let out = advance(at)
                out.add(to: &assembler)
                if !out.sensorEvents.isEmpty {
                    lastCut = at
                    return assembler.cut(at: at)
                }
            }
        }
        advance(t).add(to: &assembler)
        count += 1
        lastCut = t
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
