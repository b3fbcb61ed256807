// Device-timed rounds: a round of a sensor with device time ends with the sensor's window; a
// flip the device time puts inside it that arrives later is still its answer.
import Foundation
import Testing
import MTKTangibles
@testable import LightCheck

/// A light sensor under a scheduler's patches, answering two display frames after a change
/// and reporting over a link that adds `link` seconds, stamped with its own clock.
struct TimedSensor {
    static let boot: Seconds = 1234.5
    var at: Vec2
    var link: Seconds = 0.03
    var deviceTimed = true
    var sensed: LightColour = .black
    var pending: [(changeAt: Seconds, colour: LightColour)] = []

    func event(_ colour: LightColour, changedAt: Seconds, arrival: Seconds, kind: SensorKind = .light) -> SensorEvent {
        SensorEvent(tangible: 1, kind: kind, value: colour.sensorValue,
                    deviceTime: deviceTimed ? UInt32(truncatingIfNeeded: Int64(((changedAt + Self.boot) * 1e6).rounded(.down))) : nil,
                    arrival: arrival)
    }

    /// Heartbeats over the 17 s before `end` (a positive time): the clock learns the link's
    /// least delay (1 ms).
    func history(until end: Seconds) -> [SensorEvent] {
        (0..<64).map { k in
            let sent = end - 1 - Double(64 - k) * 0.25
            return event(.black, changedAt: sent, arrival: sent + 0.001 + Double(k % 7) * 0.004, kind: .heartbeat)
        }
    }

    /// What the sensor sees in an overlay presented at `time`.
    mutating func look(at overlay: Overlay, time: Seconds) {
        let seen = overlay.patches.last { $0.center.distance(to: at) < $0.radius }?.colour ?? .black
        let expected = pending.last?.colour ?? sensed
        if seen != expected { pending.append((time + 2.0 / 60, seen)) }
    }

    /// The notifications that arrive by `time`.
    mutating func arrivals(by time: Seconds) -> [SensorEvent] {
        var out: [SensorEvent] = []
        while let p = pending.first, p.changeAt + link <= time + 1e-9 {
            pending.removeFirst()
            sensed = p.colour
            out.append(event(p.colour, changedAt: p.changeAt, arrival: p.changeAt + link))
        }
        return out
    }
}

/// Device-timed rounds are off by default (docs/lightcheck.md): these tests turn them on.
let timedConfig: LightCheckConfig = {
    var c = LightCheckConfig()
    c.deviceTimedRounds = true
    return c
}()

/// Checks start at this time, after `TimedSensor.history`.
let start: Seconds = 20

@Suite struct DeviceTimedRoundsTests {
    static let places = [Vec2(100, 100), Vec2(140, 100), Vec2(180, 100), Vec2(220, 100), Vec2(260, 100), Vec2(300, 100)]

    /// Runs one identify check of six places with the sensor under `truth`; returns the
    /// outcome, when it came, and the scheduler.
    func run(truth: Int, deviceTimed: Bool, config: LightCheckConfig = timedConfig) -> (VerificationOutcome?, LightCheckScheduler) {
        var d = HandDriver(config: config)
        var sensor = TimedSensor(at: Self.places[truth], deviceTimed: deviceTimed)
        d.step(at: start, events: sensor.history(until: start) + [sensor.event(.black, changedAt: start - 0.5, arrival: start - 0.49)])
        d.needs = [HandDriver.need(at: Self.places)]
        var lastOverlay: UInt64 = 0
        while d.outcomes.isEmpty && d.time < start + 3 {
            let time = d.time + HandDriver.frame
            let events = sensor.arrivals(by: time)
            var presented: [PresentedOverlay] = []
            if d.scheduler.overlay.id != lastOverlay {
                lastOverlay = d.scheduler.overlay.id
                presented = [PresentedOverlay(overlayID: lastOverlay, from: d.time)]
                sensor.look(at: d.scheduler.overlay, time: d.time)
            }
            d.step(at: time, presented: presented, events: events)
        }
        return (d.outcomes.first, d.scheduler)
    }

    @Test func aDeviceTimedSensorIsConfirmedSoonerAndAlike() {
        var sooner = 0
        for truth in Self.places.indices {
            let (timed, s) = run(truth: truth, deviceTimed: true)
            let (plain, _) = run(truth: truth, deviceTimed: false)
            #expect(timed?.result == .confirmed(hypothesis: truth))
            #expect(plain?.result == .confirmed(hypothesis: truth))
            #expect(s.diagnostics.spontaneousFlips[1, default: 0] == 0)
            if let a = timed?.time, let b = plain?.time, a < b { sooner += 1 }
        }
        // A silent round ends with the sensor's window (about 80 ms) instead of its arrival
        // deadline (150 ms): whenever a round was silent, the device-timed check is sooner.
        #expect(sooner >= 4)
    }

    @Test func aLateFlipInsideTheEarlierWindowIsItsAnswer() {
        // The link takes longer than the sensor's window is long: every answer arrives after
        // the next round started. Each must still count for the round it answered.
        var config = timedConfig
        config.linkLatencyPrior = 0.06
        for truth in Self.places.indices {
            var d = HandDriver(config: config)
            var sensor = TimedSensor(at: Self.places[truth], link: 0.055)
            d.step(at: start, events: sensor.history(until: start) + [sensor.event(.black, changedAt: start - 0.5, arrival: start - 0.49)])
            d.needs = [HandDriver.need(at: Self.places)]
            var lastOverlay: UInt64 = 0
            while d.outcomes.isEmpty && d.time < start + 3 {
                let time = d.time + HandDriver.frame
                let events = sensor.arrivals(by: time)
                var presented: [PresentedOverlay] = []
                if d.scheduler.overlay.id != lastOverlay {
                    lastOverlay = d.scheduler.overlay.id
                    presented = [PresentedOverlay(overlayID: lastOverlay, from: d.time)]
                    sensor.look(at: d.scheduler.overlay, time: d.time)
                }
                d.step(at: time, presented: presented, events: events)
            }
            #expect(d.outcomes.first?.result == .confirmed(hypothesis: truth))
            #expect(d.scheduler.diagnostics.spontaneousFlips[1, default: 0] == 0)
            #expect(d.scheduler.diagnostics.answers >= 1)
        }
    }

    @Test func withoutDeviceTimeARoundWaitsForTheFullDeadline() {
        var d = HandDriver(config: timedConfig)
        d.needs = [HandDriver.need(at: [Vec2(100, 100)])]
        d.step(at: 0, light: [(1, 0)])
        _ = d.presentNow()
        d.step(at: 0.1)
        #expect(d.scheduler.diagnostics.silentRounds == 0)
        #expect(d.scheduler.deviceTimedWindow(for: 1) == nil)
    }

    @Test func aDeviceTimedSilenceIsProvisionalUntilTheLinkHadItsTime() throws {
        var d = HandDriver(config: timedConfig)
        let sensor = TimedSensor(at: Vec2(100, 100))
        d.step(at: start, events: sensor.history(until: start) + [sensor.event(.black, changedAt: start - 0.5, arrival: start - 0.49)])
        d.needs = [HandDriver.need(at: [Vec2(100, 100)])]
        d.step(at: start + 0.01)
        _ = d.presentNow()
        let timed = try #require(d.scheduler.deviceTimedWindow(for: 1))
        #expect(timed.window < d.scheduler.deadline(for: 1))
        d.idle(until: start + 0.01 + timed.window + HandDriver.frame)
        #expect(d.scheduler.diagnostics.silentRounds == 1)
        // The probe went unanswered; one candidate alone with a silence against it is no
        // reason to decide while a flip made in the window may still arrive.
        #expect(d.outcomes.isEmpty)
        let next = d.scheduler.overlay.patches
        // The flip arrives now, made 40 ms after the presentation: the earlier round's answer.
        d.step(events: [sensor.event(.white, changedAt: start + 0.05, arrival: d.time + HandDriver.frame)])
        #expect(d.scheduler.diagnostics.answers == 1)
        #expect(d.scheduler.diagnostics.spontaneousFlips[1, default: 0] == 0)
        #expect(d.outcomes.first?.result == .confirmed(hypothesis: 0) || d.scheduler.overlay.patches.map(\.colour) == next.map(\.colour))
    }
}

@Suite struct DeviceTimedConfigTests {
    @Test func deviceTimedRoundsAreOffUnlessSaid() throws {
        #expect(LightCheckConfig().deviceTimedRounds == false)
        #expect(LightCheckScheduler().deviceTimedWindow(for: 1) == nil)
    }

    @Test func oldRecordingsReadDeviceTimedRoundsAsOff() throws {
        let c = try JSONDecoder().decode(LightCheckConfig.self, from: Data("{}".utf8))
        #expect(c.deviceTimedRounds == false)
        let round = try JSONDecoder().decode(LightCheckConfig.self, from: JSONEncoder().encode(timedConfig))
        #expect(round.deviceTimedRounds == true)
    }

    @Test func aPartialSensorLatencyKeepsItsOwnDefaults() throws {
        let c = try JSONDecoder().decode(LightCheckConfig.self, from: Data(#"{"sensorLatency": {"priorDeadline": 0.09}}"#.utf8))
        #expect(c.sensorLatency.priorDeadline == 0.09)
        #expect(c.sensorLatency.priorMean == LatencyModel.Settings.sensorDefaults.priorMean)
    }

    @Test func badTimingIsRefused() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(LightCheckConfig.self, from: Data(#"{"linkLatencyPrior": -1}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(LightCheckConfig.self, from: Data(#"{"sensorLatency": {"minDeadline": 0}}"#.utf8))
        }
    }
}

@Suite struct DeviceTimedFlipTests {
    /// A flip the device time puts before the probes were on screen is no answer, however
    /// late it arrives (a sensor answering what it saw before the round).
    @Test func aFlipMadeBeforeThePresentationIsNoAnswer() {
        var d = HandDriver(config: timedConfig)
        let sensor = TimedSensor(at: Vec2(100, 100))
        d.step(at: start, events: sensor.history(until: start) + [sensor.event(.black, changedAt: start - 0.5, arrival: start - 0.49)])
        d.needs = [HandDriver.need(at: [Vec2(100, 100), Vec2(160, 100)])]
        d.step(at: start + 0.01)
        let presentedAt = d.time + 0.02
        d.step(at: presentedAt, presented: [PresentedOverlay(overlayID: d.scheduler.overlay.id, from: presentedAt)])
        // Made 10 ms before the presentation, arriving 30 ms after it.
        d.step(at: presentedAt + 0.03, events: [sensor.event(.white, changedAt: presentedAt - 0.01, arrival: presentedAt + 0.03)])
        #expect(d.scheduler.diagnostics.answers == 0)
        #expect(d.scheduler.diagnostics.spontaneousFlips[1] == 1)
        #expect(d.outcomes.isEmpty)
    }
}
