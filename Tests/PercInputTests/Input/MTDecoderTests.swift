// MT protocol B decoding on synthetic streams: begin/move/end, SYN_DROPPED resync, bad sequences.
import Testing
import MTKTangibles
@testable import PercInput
import PercTestSupport

@Suite struct MTDecoderTests {
    static var device: DeviceDescription {
        var d = DeviceDescription(name: "test panel")
        d.axes[EvdevCode.ABS_MT_SLOT] = AbsInfo(minimum: 0, maximum: 4)
        d.axes[EvdevCode.ABS_MT_POSITION_X] = AbsInfo(minimum: 0, maximum: 1000, resolution: 10)
        d.axes[EvdevCode.ABS_MT_POSITION_Y] = AbsInfo(minimum: 0, maximum: 500, resolution: 10)
        d.axes[EvdevCode.ABS_MT_TRACKING_ID] = AbsInfo(minimum: 0, maximum: 65535)
        return d
    }
    static let origin = InputOrigin(kind: .evdev, device: "test")

    func abs(_ code: UInt16, _ v: Int32, _ t: Double = 1) -> InputEvent { InputEvent(time: t, type: EvdevCode.EV_ABS, code: code, value: v) }
    func syn(_ t: Double) -> InputEvent { InputEvent(time: t, type: 0, code: EvdevCode.SYN_REPORT, value: 0) }

    func run(_ d: inout MTDecoder, _ events: [InputEvent]) -> [ContactUpdate] {
        var out: [ContactUpdate] = []
        for e in events { d.feed(e, arrival: e.time + 0.001, into: &out) }
        return out
    }

    @Test func beginMoveEndWithResolutionInMillimetres() {
        var d = MTDecoder(device: Self.device, origin: Self.origin)
        let out = run(&d, [
            abs(EvdevCode.ABS_MT_TRACKING_ID, 42, 1), abs(EvdevCode.ABS_MT_POSITION_X, 100, 1), abs(EvdevCode.ABS_MT_POSITION_Y, 50, 1), syn(1),
            abs(EvdevCode.ABS_MT_POSITION_X, 120, 2), syn(2),
            abs(EvdevCode.ABS_MT_TRACKING_ID, -1, 3), syn(3),
        ])
        #expect(out.map(\.phase) == [.begin, .move, .end])
        #expect(out.map(\.contactID) == [42, 42, 42])
        #expect(out[0].position == Vec2(10, 5) && out[1].position == Vec2(12, 5) && out[2].position == Vec2(12, 5))
        #expect(out.map(\.time) == [1, 2, 3])
        #expect(out[1].arrival == 2.001)
        #expect(out[0].raw == Vec2(100, 50))
    }

    @Test func aSlotReusedInOneFrameEndsTheOldContactAndBeginsTheNew() {
        var d = MTDecoder(device: Self.device, origin: Self.origin)
        let out = run(&d, [
            abs(EvdevCode.ABS_MT_TRACKING_ID, 1), abs(EvdevCode.ABS_MT_POSITION_X, 10), syn(1),
            abs(EvdevCode.ABS_MT_TRACKING_ID, 2, 2), abs(EvdevCode.ABS_MT_POSITION_X, 900, 2), syn(2),
        ])
        #expect(out.map(\.phase) == [.begin, .end, .begin])
        #expect(out.map(\.contactID) == [1, 1, 2])
        #expect(out[1].raw == Vec2(10, 0) && out[2].raw == Vec2(900, 0))
    }

    @Test func synDroppedIsResynchronisedFromInjectedSlotState() {
        var d = MTDecoder(device: Self.device, origin: Self.origin, canResync: true)
        var out = run(&d, [
            abs(EvdevCode.ABS_MT_SLOT, 0), abs(EvdevCode.ABS_MT_TRACKING_ID, 1), abs(EvdevCode.ABS_MT_POSITION_X, 10),
            abs(EvdevCode.ABS_MT_SLOT, 1), abs(EvdevCode.ABS_MT_TRACKING_ID, 2), abs(EvdevCode.ABS_MT_POSITION_X, 20), syn(1),
            InputEvent(time: 2, type: 0, code: EvdevCode.SYN_DROPPED, value: 0),
            abs(EvdevCode.ABS_MT_POSITION_X, 999, 2), // lost with the drop
            syn(2),
        ])
        #expect(out.count == 2)
        #expect(d.state == .needsResync)
        // While events were lost: contact 1 lifted and slot 0 got contact 3; contact 2 moved; slot 2 began contact 4.
        let snapshot = MTSnapshot(currentSlot: 2, slots: [
            MTSlot(trackingID: 3, x: 500, y: 100), MTSlot(trackingID: 2, x: 25), MTSlot(trackingID: 4, x: 700, y: 400), MTSlot(), MTSlot(),
        ])
        out.removeAll()
        d.resync(with: snapshot, time: 2.5, arrival: 2.6, into: &out)
        #expect(out.map(\.phase) == [.end, .begin, .move, .begin])
        #expect(out.map(\.contactID) == [1, 3, 2, 4])
        #expect(out.allSatisfy { $0.time == 2.5 })
        #expect(d.state == .normal)
        #expect(d.currentSlot == 2)
        // Decoding continues from the resynchronised state (current slot 2).
        let next = run(&d, [abs(EvdevCode.ABS_MT_TRACKING_ID, -1, 3), syn(3)])
        #expect(next.map(\.phase) == [.end] && next[0].contactID == 4)
    }

    @Test func resyncWithUnchangedStateEmitsNothing() {
        var d = MTDecoder(device: Self.device, origin: Self.origin, canResync: true)
        _ = run(&d, [abs(EvdevCode.ABS_MT_TRACKING_ID, 5), abs(EvdevCode.ABS_MT_POSITION_X, 10), syn(1),
                     InputEvent(time: 2, type: 0, code: EvdevCode.SYN_DROPPED, value: 0), syn(2)])
        var out: [ContactUpdate] = []
        d.resync(with: MTSnapshot(currentSlot: 0, slots: d.committed), time: 3, arrival: 3, into: &out)
        #expect(out.isEmpty)
    }

    @Test func badSequencesAreCountedLocatedAndSkipped() {
        var d = MTDecoder(device: Self.device, origin: Self.origin, sourceName: "synthetic")
        var out: [ContactUpdate] = []
        let events: [(InputEvent, Int)] = [
            (abs(EvdevCode.ABS_MT_POSITION_X, 10), 10),            // slot without tracking id
            (abs(EvdevCode.ABS_MT_SLOT, 9), 11),                   // slot out of range
            (abs(EvdevCode.ABS_MT_POSITION_X, 10), 12),            // event for an invalid slot
            (abs(EvdevCode.ABS_MT_SLOT, 0), 13),
            (abs(EvdevCode.ABS_MT_TRACKING_ID, 7), 14),
            (abs(EvdevCode.ABS_MT_POSITION_X, 5000), 15),          // out of range: skipped
            (abs(EvdevCode.ABS_MT_POSITION_X, 300), 16),
            (syn(1), 17),
            (abs(EvdevCode.ABS_MT_POSITION_X, 6000, 2), 18),
            (abs(EvdevCode.ABS_MT_POSITION_X, 7000, 2), 19),
            (syn(0.5), 20),                                        // time went backwards: clamped
        ]
        for (e, line) in events { d.feed(e, arrival: 0, line: line, into: &out) }
        #expect(d.bad.count("slot without tracking id") == 1)
        #expect(d.bad.entries["slot without tracking id"]?.firstLocation == "synthetic:10")
        #expect(d.bad.count("slot out of range") == 1)
        #expect(d.bad.count("event for an invalid slot") == 1)
        #expect(d.bad.count("value out of range") == 3)
        #expect(d.bad.entries["value out of range"]?.firstLocation == "synthetic:15")
        #expect(d.bad.count("time went backwards") == 1)
        #expect(out.count == 1 && out[0].raw == Vec2(300, 0))
    }

    @Test func protocolAStreamIsStoppedNotMisDecoded() {
        var dev = Self.device
        var d = MTDecoder(device: dev, origin: Self.origin)
        let out = run(&d, [abs(EvdevCode.ABS_MT_POSITION_X, 10), InputEvent(time: 1, type: 0, code: EvdevCode.SYN_MT_REPORT, value: 0), syn(1),
                           abs(EvdevCode.ABS_MT_TRACKING_ID, 3), syn(2)])
        #expect(out.isEmpty)
        #expect(!d.isSupported)
        dev.axes[EvdevCode.ABS_MT_SLOT] = nil
        #expect(dev.mtProtocol == .a)
        #expect(!MTDecoder(device: dev, origin: Self.origin).isSupported)
    }

    @Test func fuzzedEventSequencesNeverCrashAndKeepContactsConsistent() {
        var g = SplitMix64(seed: 0xE7D)
        let codes: [UInt16] = [EvdevCode.ABS_MT_SLOT, EvdevCode.ABS_MT_TRACKING_ID, EvdevCode.ABS_MT_POSITION_X, EvdevCode.ABS_MT_POSITION_Y,
                               EvdevCode.ABS_MT_TOUCH_MAJOR, EvdevCode.ABS_MT_ORIENTATION, EvdevCode.ABS_X]
        var total = 0
        for round in 0..<300 {
            var d = MTDecoder(device: Self.device, origin: Self.origin, canResync: round % 2 == 0)
            var out: [ContactUpdate] = []
            var t = 0.0
            for _ in 0..<400 {
                total += 1
                t += Double.random(in: -0.001...0.01, using: &g)
                let e: InputEvent
                switch Int.random(in: 0..<10, using: &g) {
                case 0...1: e = syn(t)
                case 2: e = InputEvent(time: t, type: 0, code: UInt16.random(in: 0...3, using: &g), value: 0)
                case 3: e = InputEvent(time: t, type: UInt16.random(in: 0...5, using: &g), code: UInt16.random(in: 0...0x40, using: &g), value: Int32.random(in: -3...3, using: &g))
                default: e = abs(codes.randomElement(using: &g)!, Int32.random(in: -2...1200, using: &g), t)
                }
                d.feed(e, arrival: t, into: &out)
                if d.state == .needsResync, Bool.random(using: &g) {
                    d.resync(with: MTSnapshot(currentSlot: Int.random(in: -1...6, using: &g),
                                              slots: (0..<5).map { _ in MTSlot(trackingID: Int32.random(in: -1...3, using: &g), x: Int32.random(in: 0...1000, using: &g)) }),
                             time: t, arrival: t, into: &out)
                }
            }
            // Invariant: per contact id, phases alternate begin (move*) end.
            var open = Set<Int64>()
            for u in out {
                switch u.phase {
                case .begin: #expect(!open.contains(u.contactID)); open.insert(u.contactID)
                case .move: #expect(open.contains(u.contactID))
                case .end: #expect(open.contains(u.contactID)); open.remove(u.contactID)
                }
                #expect(u.position.x.isFinite && u.position.y.isFinite)
            }
            #expect(zip(out, out.dropFirst()).allSatisfy { $0.time <= $1.time })
        }
        #expect(total == 120_000)
    }

    @Test func aDeviceThatGoesAwayEndsItsContactsWhereTheyWere() {
        // EvdevInputSource calls endAll when its device is unplugged or no longer read: no
        // finger of a gone device may stay on the surface (issue 36).
        var d = MTDecoder(device: Self.device, origin: Self.origin)
        _ = run(&d, [
            abs(EvdevCode.ABS_MT_SLOT, 0, 1), abs(EvdevCode.ABS_MT_TRACKING_ID, 7, 1), abs(EvdevCode.ABS_MT_POSITION_X, 100, 1), abs(EvdevCode.ABS_MT_POSITION_Y, 50, 1),
            abs(EvdevCode.ABS_MT_SLOT, 2, 1), abs(EvdevCode.ABS_MT_TRACKING_ID, 9, 1), abs(EvdevCode.ABS_MT_POSITION_X, 300, 1), abs(EvdevCode.ABS_MT_POSITION_Y, 60, 1), syn(1),
            abs(EvdevCode.ABS_MT_SLOT, 0, 2), abs(EvdevCode.ABS_MT_POSITION_X, 110, 2), syn(2),
        ])
        var out: [ContactUpdate] = []
        d.endAll(time: 5, arrival: 5.001, into: &out)
        #expect(out.map(\.phase) == [.end, .end])
        #expect(out.map(\.contactID) == [7, 9])
        #expect(out[0].position == Vec2(11, 5) && out[1].position == Vec2(30, 6))
        #expect(out.allSatisfy { $0.time == 5 })
        var again: [ContactUpdate] = []
        d.endAll(time: 6, arrival: 6, into: &again)
        #expect(again.isEmpty, "ended once")
    }
}
