// `percbridge-bench inputs`: evdev and OSC decoding throughput, and contact arrival → frame handover latency.
import ArgumentParser
import Foundation
import Histogram
import MTKTangibles
import Synchronization
import PercSystem
import PercInput
import PercRuntime

struct InputBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inputs",
        abstract: "Decoding throughput (evdev, OSC/TUIO) and arrival-to-frame latency at 120 Hz.",
        discussion: """
        Throughput: the MT protocol B decoder over a real 4-finger recording, and the OSC \
        decoder + TUIO 1.1 decoder over a 4-cursor bundle, each against a baseline that only \
        reads the same data (ratio = how many times slower than touching the bytes). \
        Latency: a producer thread adds contacts at random moments while the frame clock \
        ticks at --rate; each contact's time from arrival to its frame being handed over is \
        recorded (HdrHistogram), against the ideal of a perfect clock (uniform 0…period).

        Example:
          swift build -c release && .build/release/percbridge-bench inputs
        """
    )

    @Option(help: "Seconds per throughput measurement.") var seconds = 1.0
    @Option(help: "Seconds of the latency run.") var latencySeconds = 3.0
    @Option(help: "Frame rate for the latency run.") var rate = 120.0

    func run() async throws {
        evdevThroughput()
        oscThroughput()
        try await latency()
    }

    /// A 4-finger drag, generated so the bench needs no files: 4 slots moving for 100 frames.
    static func syntheticEvents() -> (DeviceDescription, [InputEvent]) {
        var d = DeviceDescription(name: "bench panel")
        d.axes[EvdevCode.ABS_MT_SLOT] = AbsInfo(minimum: 0, maximum: 9)
        d.axes[EvdevCode.ABS_MT_POSITION_X] = AbsInfo(minimum: 0, maximum: 4095, resolution: 10)
        d.axes[EvdevCode.ABS_MT_POSITION_Y] = AbsInfo(minimum: 0, maximum: 4095, resolution: 10)
        d.axes[EvdevCode.ABS_MT_TRACKING_ID] = AbsInfo(minimum: 0, maximum: 65535)
        d.axes[EvdevCode.ABS_MT_TOUCH_MAJOR] = AbsInfo(minimum: 0, maximum: 255)
        var ev: [InputEvent] = []
        var t = 0.0
        for frame in 0...101 {
            for s in 0..<4 {
                ev.append(InputEvent(time: t, type: EvdevCode.EV_ABS, code: EvdevCode.ABS_MT_SLOT, value: Int32(s)))
                if frame == 0 { ev.append(InputEvent(time: t, type: EvdevCode.EV_ABS, code: EvdevCode.ABS_MT_TRACKING_ID, value: Int32(s + 1))) }
                if frame == 101 { ev.append(InputEvent(time: t, type: EvdevCode.EV_ABS, code: EvdevCode.ABS_MT_TRACKING_ID, value: -1)); continue }
                ev.append(InputEvent(time: t, type: EvdevCode.EV_ABS, code: EvdevCode.ABS_MT_POSITION_X, value: Int32(500 + s * 700 + frame * 3)))
                ev.append(InputEvent(time: t, type: EvdevCode.EV_ABS, code: EvdevCode.ABS_MT_POSITION_Y, value: Int32(400 + frame * 20)))
                ev.append(InputEvent(time: t, type: EvdevCode.EV_ABS, code: EvdevCode.ABS_MT_TOUCH_MAJOR, value: Int32(20 + frame % 3)))
            }
            ev.append(InputEvent(time: t, type: EvdevCode.EV_SYN, code: EvdevCode.SYN_REPORT, value: 0))
            t += 0.008
        }
        return (d, ev)
    }

    /// Runs `body` repeatedly for `seconds`; returns iterations per second. Every result goes
    /// through `blackHole`, so the optimizer cannot drop the work (or the baseline's).
    func rate(_ body: () -> Int) -> (perSecond: Double, sink: Int) {
        var sink = 0, n = 0
        let start = MonotonicClock.now()
        var now = start
        repeat {
            for _ in 0..<10 { sink &+= body(); n += 1 }
            now = MonotonicClock.now()
        } while now - start < seconds
        blackHole(sink)
        return (Double(n) / (now - start), sink)
    }

    func evdevThroughput() {
        let (device, generated) = Self.syntheticEvents()
        // Opaque to the optimizer: neither side may be computed at compile time.
        let events = opaque(generated)
        let origin = InputOrigin(kind: .evdev, device: "bench")
        var out: [ContactUpdate] = []
        out.reserveCapacity(1024)
        let decode = rate {
            var d = MTDecoder(device: device, origin: origin)
            out.removeAll(keepingCapacity: true)
            for e in events { d.feed(e, arrival: e.time, into: &out) }
            // Consume what was decoded, not only how much.
            var check = out.count
            for u in out { check &+= Int(truncatingIfNeeded: u.position.x.bitPattern &+ u.position.y.bitPattern) &+ Int(u.contactID) }
            return check
        }
        let baseline = rate {
            var s = 0
            for e in events { s &+= Int(e.value) &+ Int(e.code) &+ Int(e.type) &+ Int(truncatingIfNeeded: e.time.bitPattern) }
            return s
        }
        var d = MTDecoder(device: device, origin: origin)
        out.removeAll(keepingCapacity: true)
        for e in events { d.feed(e, arrival: e.time, into: &out) }
        let eps = decode.perSecond * Double(events.count)
        print("evdev MT-B decoder:   \(fmt(eps)) events/s (\(events.count) events → \(out.count) contact updates per pass)")
        print("  baseline (read every field of the same events): \(fmt(baseline.perSecond * Double(events.count))) events/s; "
              + "the decoder is \(String(format: "%.1f", baseline.perSecond / decode.perSecond))x slower than reading")
    }

    func oscThroughput() {
        var msgs: [OSCPacket] = [.message(OSCMessage("/tuio/2Dcur", [.string("source"), .string("bench@host")])),
                                 .message(OSCMessage("/tuio/2Dcur", [.string("alive"), .int32(1), .int32(2), .int32(3), .int32(4)]))]
        for s in 1...4 {
            msgs.append(.message(OSCMessage("/tuio/2Dcur", [.string("set"), .int32(Int32(s)), .float32(0.1 * Float(s)), .float32(0.5), .float32(0), .float32(0), .float32(0)])))
        }
        msgs.append(.message(OSCMessage("/tuio/2Dcur", [.string("fseq"), .int32(1)])))
        let bytes = opaque(OSCPacket.bundle(OSCBundle(timeTag: .immediately, msgs)).encoded())
        let decode = rate {
            guard let packet = try? OSCPacket.decode(bytes) else { return 0 }
            var check = 0
            for m in packet.messages { check &+= m.address.utf8.count &+ m.arguments.count }
            return check
        }
        var tuio = TUIODecoder(surfaceSize: Vec2(1000, 500))
        var out: [ContactUpdate] = []
        var fseq: Int32 = 0
        var framePackets: [[UInt8]] = []
        for i in 0..<64 {
            var m = msgs
            m[m.count - 1] = .message(OSCMessage("/tuio/2Dcur", [.string("fseq"), .int32(Int32(i + 1))]))
            m[2] = .message(OSCMessage("/tuio/2Dcur", [.string("set"), .int32(1), .float32(Float(i) / 100), .float32(0.5), .float32(0), .float32(0), .float32(0)]))
            framePackets.append(OSCPacket.bundle(OSCBundle(timeTag: .immediately, m)).encoded())
        }
        framePackets = opaque(framePackets)
        let full = rate {
            out.removeAll(keepingCapacity: true)
            fseq &+= 200 // a jump > 100 counts as a sender restart, so every pass is accepted
            for p in framePackets { tuio.feed(datagram: p, sender: "bench:\(fseq)", arrival: 0, into: &out) }
            var check = out.count
            for u in out { check &+= Int(truncatingIfNeeded: u.position.x.bitPattern) }
            return check
        }
        // The baseline reads the packet the way the decoder must: 4-byte big-endian words.
        let baseline = rate {
            bytes.withUnsafeBytes { raw in
                var s = 0
                var i = 0
                while i + 4 <= raw.count { s &+= Int(UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt32.self))); i += 4 }
                return s
            }
        }
        let perPacket = Double(msgs.count)
        print("OSC decoder:          \(fmt(decode.perSecond * perPacket)) messages/s (\(fmt(decode.perSecond)) bundles/s of \(msgs.count) messages, \(bytes.count) bytes)")
        print("  baseline (read the same bundle as big-endian words): \(fmt(baseline.perSecond)) bundles/s; "
              + "the decoder is \(String(format: "%.1f", baseline.perSecond / decode.perSecond))x slower than reading")
        print("OSC + TUIO 1.1 2Dcur: \(fmt(full.perSecond * 64 * perPacket)) messages/s into contact updates (\(fmt(full.perSecond * 64)) frames/s)")
    }

    func latency() async throws {
        let clock = FrameClock(mode: .fixedRate(hz: rate))
        let hist = Mutex(Histogram<UInt64>(highestTrackableValue: 1_000_000, numberOfSignificantValueDigits: .three))
        let gaps = Mutex(Histogram<UInt64>(highestTrackableValue: 1_000_000, numberOfSignificantValueDigits: .three))
        let last = Mutex<Seconds?>(nil)
        clock.start { frame in
            let handed = MonotonicClock.now()
            hist.withLock { h in for c in frame.contacts { _ = h.record(UInt64(max(0, (handed - c.arrival) * 1e6))) } }
            last.withLock { l in
                if let p = l { _ = gaps.withLock { $0.record(UInt64(max(0, (frame.time - p) * 1e6))) } }
                l = frame.time
            }
        }
        let stop = Atomic<Bool>(false)
        let producer = Thread {
            var g = SystemRandomNumberGenerator()
            let o = InputOrigin(kind: .json, device: "bench")
            var id: Int64 = 0
            while !stop.load(ordering: .acquiring) {
                MonotonicClock.sleep(until: MonotonicClock.now() + Double.random(in: 0.0002...0.002, using: &g))
                let t = MonotonicClock.now()
                id += 1
                clock.add(ContactUpdate(origin: o, contactID: id % 10, phase: .move, position: Vec2(1, 1), time: t, arrival: t))
            }
        }
        producer.start()
        try await Task.sleep(for: .seconds(latencySeconds))
        stop.store(true, ordering: .releasing)
        try await Task.sleep(for: .milliseconds(50))
        clock.stop()
        let h = hist.withLock { $0 }, g = gaps.withLock { $0 }
        let period = 1e6 / rate
        let p50 = Double(h.valueAtPercentile(50)), p99 = Double(h.valueAtPercentile(99))
        print("arrival → frame handed over at \(fmt(rate)) Hz (\(h.totalCount) contacts): p50 \(ms(p50)) ms, p99 \(ms(p99)) ms, max \(ms(Double(h.max))) ms")
        print("  ideal clock (uniform over one period): p50 \(ms(period * 0.5)) ms, p99 \(ms(period * 0.99)) ms; ratio p50 \(String(format: "%.2f", p50 / (period * 0.5))), p99 \(String(format: "%.2f", p99 / (period * 0.99)))")
        print("  tick interval: p50 \(ms(Double(g.valueAtPercentile(50)))) ms, p99 \(ms(Double(g.valueAtPercentile(99)))) ms, max \(ms(Double(g.max))) ms (period \(ms(period)) ms), missed ticks \(clock.ticker.missedTicks)")
    }

    /// Keeps a value alive as far as the optimizer can tell.
    @inline(never) @_optimize(none)
    func blackHole<T>(_ value: T) {}

    /// Returns its argument through a call the optimizer cannot see through.
    @inline(never) @_optimize(none)
    func opaque<T>(_ value: T) -> T { value }

    func fmt(_ v: Double) -> String {
        v >= 1e6 ? String(format: "%.2fM", v / 1e6) : v >= 1e3 ? String(format: "%.1fk", v / 1e3) : String(format: "%.0f", v)
    }
    func ms(_ us: Double) -> String { String(format: "%.3f", us / 1000) }
}
