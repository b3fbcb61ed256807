// `bench service`: the latency phase's field-off / field-on cycles, one PERC at a time, at random phases of the frame tick.
import Foundation
import MTKTangibles
import PercSystem
import PercEmulator

/// For each PERC in turn: its stream stops (a streamed value carries field on), field off is
/// sent and the bench waits for its tangible to leave TUIO; its markers are lifted and put
/// down again (new touches), field on is sent and the bench waits for it to reappear; its
/// stream starts again. Each send waits a random fraction of a frame first, so sends fall
/// uniformly over the frame period (the wait for the next tick is then sampled fairly).
struct BenchLatencyCycler {
    let addresses: [String]
    let control: BlueZEmulatorControl
    let touches: BenchTouchSender
    let watcher: BenchTUIOWatcher
    let period: Seconds
    let percRate: Double
    /// How long a change may take to show in TUIO before it counts as not seen.
    let timeout: Seconds = 1

    func run(until end: Seconds, between: () -> Void) async throws -> [BenchLatency.Transition] {
        var out: [BenchLatency.Transition] = []
        var k = 0
        while MonotonicClock.now() < end {
            let tangible = k + 1  // registry ids follow the order the bench registered them
            let address = addresses[k]
            if percRate > 0 { try await control.stopStream(address) }
            if watcher.latest?.present.contains(tangible) == true {
                out.append(try await transition(k, tangible: tangible, fieldOn: false))
            } else {
                // Not in TUIO (still searching): field off all the same, so field on is a change; no sample.
                try await control.sendV1(address, field: 0, light: 0)
            }
            touches.lift(perc: k)
            try await Task.sleep(for: .milliseconds(30))
            touches.place(perc: k)
            try await Task.sleep(for: .milliseconds(30))
            out.append(try await transition(k, tangible: tangible, fieldOn: true))
            if percRate > 0 { try await control.startStream(address, rate: percRate, count: 0) }
            between()
            k = (k + 1) % addresses.count
        }
        return out
    }

    private func transition(_ k: Int, tangible: Int, fieldOn: Bool) async throws -> BenchLatency.Transition {
        try await Task.sleep(for: .microseconds(Int(Double.random(in: 0..<period) * 1e6)))
        let called = MonotonicClock.now()
        try await control.sendV1(addresses[k], field: fieldOn ? 1 : 0, light: 0)
        var t = BenchLatency.Transition(perc: k, tangible: TangibleID(tangible), fieldOn: fieldOn, called: called)
        while MonotonicClock.now() < called + timeout {
            if let p = watcher.firstPacket(after: called, tangible: tangible, present: fieldOn) {
                t.tuio = p.time
                break
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        return t
    }
}
