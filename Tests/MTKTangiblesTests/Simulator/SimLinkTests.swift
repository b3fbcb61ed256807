// The simulated BLE link: sequence numbers, heartbeats, link loss and return, notification loss, profiles.

import Testing
@testable import MTKTangibles
@testable import MTKSimulator

@Suite("Simulator link")
struct SimLinkTests {
    @Test("link loss: notifications stop, the host reports the loss after the supervision timeout; on return the PERC reports its state")
    func lossAndReturn() {
        var w = SimWorld(seed: 400, model: SimTest.model { $0.lightSpontaneousFlipRate = 0 })
        w.add(.standardPerc(id: 1, name: "A"))
        w.place(1, at: Pose(position: Vec2(300, 200), angle: 0.6))
        _ = w.advance(to: 2)
        w.linkLoss(1)
        let during = w.advance(to: 5.5)
        let linkDown = during.sensorEvents.filter { $0.kind == .link }
        #expect(linkDown.map(\.value) == [0])
        #expect(abs(linkDown[0].arrival - 4) < 1e-9)
        #expect(during.sensorEvents.allSatisfy { $0.kind == .link || $0.arrival < 2.05 })
        w.linkReturn(1)
        let after = w.advance(to: 6)
        #expect(after.sensorEvents.map(\.kind).prefix(4) == [.link, .battery, .field, .light])
        #expect(after.sensorEvents.first { $0.kind == .field }?.value == 1)
    }

    @Test("PERC GATT v1: sequence numbers count up, device time runs, a heartbeat follows a quiet second")
    func sequenceAndHeartbeat() {
        var w = SimWorld(seed: 401, model: SimTest.model { $0.lightSpontaneousFlipRate = 0 })
        w.add(.standardPerc(id: 1, name: "A"))
        let events = w.advance(to: 5.5).sensorEvents.filter { $0.kind != .link }
        let seqs = events.compactMap(\.sequence)
        #expect(seqs.count == events.count)
        #expect(seqs == Array(seqs.first!..<(seqs.first! + UInt16(seqs.count))))
        let beats = events.filter { $0.kind == .heartbeat }
        #expect(beats.count == 5)
        let times = events.compactMap(\.deviceTime)
        // Notifications made in the same instant (the state read at link-up) share a device time.
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(times.last! - times.first! > 4_000_000)
    }

    @Test("lost notifications leave gaps in the sequence numbers at the configured rate")
    func notificationLoss() {
        var w = SimWorld(seed: 402, model: SimTest.model { $0.notificationLossProbability = 0.2; $0.lightSpontaneousFlipRate = 0 })
        w.add(.standardPerc(id: 1, name: "A"))
        let events = w.advance(to: 3_000).sensorEvents.filter { $0.sequence != nil }
        let seqs = events.compactMap(\.sequence).map(Int.init)
        var gaps = 0, span = 0
        for (a, b) in zip(seqs, seqs.dropFirst()) { let d = (b - a + 65_536) % 65_536; span += d; gaps += d - 1 }
        let rate = Double(gaps) / Double(span)
        #expect(abs(rate - 0.2) < 0.03, "loss \(rate)")
        #expect(w.truth.lostNotifications == gaps)
    }

    @Test("MTK serial PERCs send no sequence numbers, device time, heartbeats or battery; PUCs send nothing")
    func profiles() {
        var w = SimWorld(seed: 403)
        w.add(.standardPerc(id: 1, name: "A", profile: .mtkSerial))
        w.add(TangibleDefinition(id: 2, name: "PUC", kind: .puc, markers: [Vec2(0, 0), Vec2(30, 0), Vec2(0, 30)], footprint: .circle(radius: 30)))
        w.place(1, at: Pose(position: Vec2(300, 200), angle: 0.6))
        w.place(2, at: Pose(position: Vec2(500, 200), angle: 0.6))
        let out = w.advance(to: 3)
        #expect(out.sensorEvents.allSatisfy { $0.tangible == 1 && $0.sequence == nil && $0.deviceTime == nil })
        #expect(Set(out.sensorEvents.map(\.kind)).isSubset(of: [.link, .field, .light]))
        #expect(out.contacts.contains { w.truth.contacts[$0.contactID]?.maker == .marker(tangible: 2, index: 0) })
    }
}
